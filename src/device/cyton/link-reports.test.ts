import { expect, test } from 'vitest';
import type { LiveLinkEvent } from '../live/driver.js';
import { LinkReports } from './link-reports.js';

test('lost once per reason; restored at once when idle, at the first packet when streaming', () => {
  const events: LiveLinkEvent[] = [];
  const reports = new LinkReports((e) => events.push(e));
  reports.lost('gone');
  reports.lost('gone');
  reports.restored('back', true);
  // Mute after answering: a new reason is said once, however many retries.
  reports.lost('mute');
  reports.restored('back', true);
  reports.lost('mute');
  expect(events.map((e) => e.kind)).toEqual(['lost', 'lost']);
  reports.restored('back with samples', true);
  reports.samplesArrived();
  reports.samplesArrived();
  reports.lost('gone');
  reports.restored('answers', false);
  expect(events).toEqual([
    { kind: 'lost', message: 'gone' },
    { kind: 'lost', message: 'mute' },
    { kind: 'restored', message: 'back with samples' },
    { kind: 'lost', message: 'gone' },
    { kind: 'restored', message: 'answers' },
  ]);
  expect(reports.isLost).toBe(false);
});

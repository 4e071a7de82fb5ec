import { afterAll, describe, expect, test, vi } from 'vitest';
import { voltageChannel } from '../../device/channels.js';
import { createSimulatedHeadset } from '../../device/simulated/index.js';
import type { HostMetrics } from '../../platform/metrics/host-metrics.js';
import { statusAnswer, statusText } from './status.js';

const device = createSimulatedHeadset({ seed: 5 });
const context = {
  device,
  hostMetrics: { cpuThermal: () => ({ celsius: 41.5, source: 'sensor' }) } as unknown as HostMetrics,
  streams: () => ({ total: 2, running: 1 }),
  startedAt: Date.now() - 12_345,
  version: '9.9.9',
};

afterAll(async () => {
  await device.close();
});

/** Both encodings at one instant (the uptime is the clock's): the kept lists' text must not show. */
function both(): [string, string] {
  vi.spyOn(Date, 'now').mockReturnValue(context.startedAt + 60_000);
  try {
    return [statusText(context), JSON.stringify(statusAnswer(context))];
  } finally {
    vi.restoreAllMocks();
  }
}

describe('statusText', () => {
  test('is the answer encoded, byte for byte, each time (the channel lists kept as text)', () => {
    for (let i = 0; i < 3; i++) {
      const [kept, fresh] = both();
      expect(kept).toBe(fresh);
    }
    const { status } = JSON.parse(both()[0]) as { status: { channels: { played: { name: string }[] } } };
    expect(status.channels.played.map((c) => c.name)).toEqual(device.eeg.channels().map((c) => c.name));
  });

  test('a device whose lists are replaced answers the new lists, not the kept text', () => {
    const played = Object.freeze([voltageChannel('Cz', 'EEG'), voltageChannel('AUX1', 'MISC', 'mV')]);
    const unplayed = Object.freeze([{ name: 'ch9', reason: 'not wired' }]);
    vi.spyOn(device.eeg, 'channels').mockReturnValue(played);
    vi.spyOn(device.eeg, 'unplayedChannels').mockReturnValue(unplayed);
    const now = Date.now();
    vi.spyOn(Date, 'now').mockReturnValue(now);
    try {
      const text = statusText(context);
      expect(text).toBe(JSON.stringify(statusAnswer(context)));
      expect(JSON.parse(text).status.channels).toEqual({ played, unplayed });
    } finally {
      vi.restoreAllMocks();
    }
    expect(both()[0]).toBe(both()[1]);
  });
});

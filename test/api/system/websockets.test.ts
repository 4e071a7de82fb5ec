import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { jobsFor } from '../../../src/platform/jobs/jobs.js';
import { EventMessage } from '../../../src/platform/schemas/events.js';
import { check } from '../../../src/platform/schemas/validator.js';
import type { SystemApp } from './support.js';
import { systemApp } from './support.js';

/** Collects the JSON messages of a socket until `done` says enough (or times out). */
function collect(url: string, done: (messages: Record<string, unknown>[]) => boolean, timeoutMs = 5000) {
  const socket = new WebSocket(url);
  const messages: Record<string, unknown>[] = [];
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', () => {
      resolve();
    });
    socket.once('error', reject);
  });
  const finished = new Promise<Record<string, unknown>[]>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error(`timed out with ${messages.length} messages`));
    }, timeoutMs);
    socket.on('message', (data: Buffer) => {
      messages.push(JSON.parse(data.toString()) as Record<string, unknown>);
      if (done(messages)) {
        clearTimeout(timer);
        socket.close();
        resolve(messages);
      }
    });
  });
  return { socket, opened, finished };
}

describe('WebSockets under /system', () => {
  let s: SystemApp;
  let base: string;
  beforeEach(async () => {
    s = await systemApp({ guides: false });
    base = await s.listen();
  });
  afterEach(async () => {
    await s.close();
  });

  it('sends the device frames as JSON while acquisition runs', async () => {
    const client = collect(`${base}/system/sensors/eeg/stream`, (m) => m.length >= 5);
    await client.opened;
    await fetch(`${base.replace('ws', 'http')}/system/sensors/eeg/stream`, { method: 'POST' });
    const frames = await client.finished;
    const first = frames[0] as { channels: string[]; data: number[][]; sampleRate: number; seq: number };
    expect(first.channels).toHaveLength(19);
    expect(first.sampleRate).toBe(250);
    expect(first.data.length).toBeGreaterThan(0);
    expect(first.data[0]).toHaveLength(19);
    const seqs = frames.map((f) => f.seq as number);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  });

  it('sends every device event on /system/events', async () => {
    const client = collect(`${base}/system/events`, (m) => m.some((e) => e.type === 'impedance'));
    await client.opened;
    await fetch(`${base.replace('ws', 'http')}/system/sensors/eeg/stream`, { method: 'POST' });
    await fetch(`${base.replace('ws', 'http')}/system/sensors/eeg/stream`, { method: 'DELETE' });
    await fetch(`${base.replace('ws', 'http')}/system/sensors/impedance?channels=O1`);
    const events = await client.finished;
    const system = events.filter((e) => e.type === 'system').map((e) => e.eventType);
    expect(system).toEqual(expect.arrayContaining(['acquisition_started', 'acquisition_stopped']));
    const impedance = events.find((e) => e.type === 'impedance') as {
      data: Record<string, number>;
      timestamp: number;
    };
    // kΩ in events: a retracted electrode reads in the MΩ range, i.e. above 1000 kΩ.
    expect(impedance.data.O1).toBeGreaterThan(1000);
    expect(impedance.timestamp).toBeGreaterThan(1.6e12);
  });
});

describe('the messages of /system/events', () => {
  // The dashboard's types and the OpenAPI document read platform/schemas/events.ts; the hub is typed from
  // it, and here what reaches a client is checked against it, message by message.
  it("are each of the documented shape: system, impedance, quality, job and the API's own", async () => {
    const s = await systemApp({ guides: false });
    try {
      const base = await s.listen();
      const http = base.replace('ws', 'http');
      const kinds = ['system', 'impedance', 'quality', 'job'];
      const all = collect(
        `${base}/system/events`,
        (m) =>
          kinds.every((kind) => m.some((e) => e.type === kind)) &&
          m.some((e) => e.type === 'job' && (e.job as { status: string }).status === 'completed'),
        10_000,
      );
      const quality = collect(`${base}/system/events`, (m) => m.some((e) => e.type === 'quality'), 10_000);
      await Promise.all([all.opened, quality.opened]);
      await fetch(`${http}/system/sensors/eeg/stream`, { method: 'POST' });
      await quality.finished;
      await fetch(`${http}/system/sensors/eeg/stream`, { method: 'DELETE' });
      await fetch(`${http}/system/sensors/impedance?channels=O1`);
      s.events.system('impedance_increase', 'warning', 'O1 rose.');
      const job = jobsFor(s.device).start('test.operation', { total: 1, completed: 0, electrodes: {} }, () =>
        Promise.resolve({ done: true }),
      );
      await job.settled;
      const messages = await all.finished;
      const wrong = messages.flatMap((message) =>
        check(EventMessage, message).map(
          (issue) => `${JSON.stringify(message)}: ${issue.path} ${issue.message}`,
        ),
      );
      expect(wrong).toEqual([]);
    } finally {
      await s.close();
    }
  });
});

describe('events raised by the API', () => {
  it('reach /system/events like device events', async () => {
    const s = await systemApp({ guides: false });
    try {
      const base = await s.listen();
      const client = collect(`${base}/system/events`, (m) =>
        m.some((e) => e.eventType === 'impedance_increase'),
      );
      await client.opened;
      s.events.system('impedance_increase', 'warning', 'O1 rose.');
      const events = await client.finished;
      expect(events.at(-1)).toMatchObject({ type: 'system', level: 'warning', message: 'O1 rose.' });
    } finally {
      await s.close();
    }
  });
});

describe('WebSocket paths asked for without an upgrade', () => {
  it('answer the error envelope saying how to connect', async () => {
    const s = await systemApp();
    try {
      for (const url of ['/system/events', '/system/sensors/eeg/stream', '/electrodes/impedance/live']) {
        const res = await s.app.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBe(400);
        expect((JSON.parse(res.body) as { error: { message: string } }).error.message).toContain('WebSocket');
      }
    } finally {
      await s.close();
    }
  });
});

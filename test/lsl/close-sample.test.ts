/**
 * The sample liblsl 1.16 sends when its outlet closes, byte for byte as it sends it, kept out of
 * what an inlet's feed passes on: an outlet that speaks like liblsl 1.16 (the answer to the feed
 * request, the two test patterns, samples in protocol 1.10, then the close sample: tag 2, the
 * clock at closing, the values its pool's slot held) and answers queries on its service port while
 * it runs. Samples the outlet really sent always pass, a flat signal's included.
 */
import dgram from 'node:dgram';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { sampleBytes110, testPatterns110, writeSample110 } from '../../src/lsl/codec.js';
import { HOLD_MS, leftOutNote } from '../../src/lsl/close-sample.js';
import { type Feed, openFeed } from '../../src/lsl/inlet.js';
import type { ResolvedStream } from '../../src/lsl/resolver.js';

const CHANNELS = 3;
const RATE = 500;

interface FakeOutlet {
  stream: ResolvedStream;
  /** The feed's connection, once the inlet opened it. */
  connection: Promise<Socket>;
  /** Closes its service port, as a destroyed outlet does: queries sent there are refused. */
  stopService(): void;
  /** Its service port taken by another outlet: time probes answered, queries for this uid not. */
  givePortAway(): void;
  /** Its service port kept but nothing answered (a network that drops every datagram). */
  silenceService(): void;
  /** Answers each query this long after it came (a loaded machine, a sleepy link). */
  answerAfter(ms: number): void;
  close(): Promise<void>;
}

async function fakeOutlet(): Promise<FakeOutlet> {
  const service = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => service.bind(0, '127.0.0.1', resolve));
  let serviceOpen = true;
  let holder: 'this outlet' | 'another outlet' | 'nobody answers' = 'this outlet';
  let delayMs = 0;
  // Queries on the service port, as liblsl's outlets answer them, in order: discovery (this one:
  // for its uid, to the return port the query names) and time probes (to the sender's port).
  service.on('message', (message, remote) => {
    const [method, query, ret] = message.toString().split('\r\n');
    let answer: (() => void) | undefined;
    if (method === 'LSL:shortinfo' && query === "uid='fake'" && holder === 'this outlet') {
      const [port, id] = (ret ?? '').split(' ');
      answer = () => {
        service.send(`${id}\r\n<info><uid>fake</uid></info>`, Number(port), remote.address);
      };
    } else if (method === 'LSL:timedata' && holder !== 'nobody answers') {
      const [waveId, t0] = (query ?? '').split(' ');
      answer = () => {
        service.send(` ${waveId} ${t0} 1.5 1.5`, remote.port, remote.address);
      };
    }
    if (answer !== undefined)
      setTimeout(() => {
        if (serviceOpen) answer();
      }, delayMs);
  });
  let onConnection: (socket: Socket) => void = () => undefined;
  const connection = new Promise<Socket>((resolve) => {
    onConnection = resolve;
  });
  const server: Server = createServer((socket) => {
    socket.once('data', () => {
      socket.write('LSL/110 200 OK\r\nUID: fake\r\nByte-Order: 1234\r\nData-Protocol-Version: 110\r\n\r\n');
      socket.write(testPatterns110('double64', CHANNELS));
      onConnection(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const stream: ResolvedStream = {
    name: 'Fake 1.16',
    type: 'Gaze',
    channelCount: CHANNELS,
    channelFormat: 'double64',
    sourceId: 'fake',
    nominalSrate: RATE,
    version: 110,
    createdAt: 1,
    uid: 'fake',
    sessionId: 'default',
    hostname: 'here',
    v4address: '127.0.0.1',
    v4dataPort: port,
    v4servicePort: service.address().port,
    v6address: '',
    v6dataPort: 0,
    v6servicePort: 0,
    descXml: '',
    channels: [],
  };
  return {
    stream,
    connection,
    stopService() {
      if (serviceOpen) service.close();
      serviceOpen = false;
    },
    givePortAway() {
      holder = 'another outlet';
    },
    silenceService() {
      holder = 'nobody answers';
    },
    answerAfter(ms) {
      delayMs = ms;
    },
    async close() {
      if (serviceOpen) service.close();
      serviceOpen = false;
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Samples in protocol 1.10, one write each as liblsl's pushthrough sends them. */
function encode(samples: readonly { t: number; values: number[] }[]): Buffer {
  const size = sampleBytes110('double64', CHANNELS);
  const out = Buffer.alloc(size * samples.length);
  samples.forEach((s, i) => writeSample110(out, i * size, 'double64', s.t, s.values));
  return out;
}

const pushed = (n: number, from = 0) =>
  Array.from({ length: n }, (_, k) => ({
    t: 100 + (from + k) / RATE,
    values: Array.from({ length: CHANNELS }, (_, c) => (from + k) * CHANNELS + c),
  }));

interface Reading {
  feed: Feed;
  samples: { t: number; values: number[] }[];
  dropped: { timestamp: number; values: number[] }[];
  ended: Promise<string>;
  /** Resolves once `n` samples were passed on. */
  until(n: number): Promise<void>;
}

function read(stream: ResolvedStream): Reading {
  const samples: { t: number; values: number[] }[] = [];
  const dropped: { timestamp: number; values: number[] }[] = [];
  const waiters: (() => void)[] = [];
  let onEnd: (reason: string) => void = () => undefined;
  const ended = new Promise<string>((resolve) => {
    onEnd = resolve;
  });
  const feed = openFeed(
    stream,
    1000,
    (values, timestamps) => {
      timestamps.forEach((t, i) =>
        samples.push({ t, values: values.slice(i * CHANNELS, (i + 1) * CHANNELS) }),
      );
      for (const waiter of waiters.splice(0)) waiter();
    },
    onEnd,
    (sample) => dropped.push(sample),
  );
  return {
    feed,
    samples,
    dropped,
    ended,
    async until(n) {
      while (samples.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}

describe('the sample liblsl sends when its outlet closes', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function setup(): Promise<{ outlet: FakeOutlet; reading: Reading; socket: Socket }> {
    const outlet = await fakeOutlet();
    const reading = read(outlet.stream);
    cleanups.push(
      () => {
        reading.feed.close();
      },
      () => outlet.close(),
    );
    return { outlet, reading, socket: await outlet.connection };
  }

  test('lsl-inlet records a sample that was never sent: a zero sample at closing time, then the end', async () => {
    const { outlet, reading, socket } = await setup();
    const sent = pushed(200);
    for (const sample of sent) socket.write(encode([sample]));
    await reading.until(200);
    // What liblsl 1.16's end_serving() sends: an unused slot of its pool, stamped with its clock.
    outlet.stopService();
    socket.end(encode([{ t: 100.4105, values: [0, 0, 0] }]));
    expect(await reading.ended).toBe('the outlet closed the connection');
    expect(reading.samples).toEqual(sent);
    expect(reading.dropped).toEqual([{ timestamp: 100.4105, values: [0, 0, 0] }]);
  });

  test('a close sample holding the values of an earlier sample (a reused slot) is left out', async () => {
    const { outlet, reading, socket } = await setup();
    const sent = pushed(1664);
    socket.write(encode(sent));
    await reading.until(1664);
    outlet.stopService();
    // gaze2.csv ended …4990,4991,4992 then 0,1,2 10.5 ms later: sample 0's slot, reused.
    socket.end(encode([{ t: (sent.at(-1)?.t ?? 0) + 0.0105, values: [0, 1, 2] }]));
    await reading.ended;
    expect(reading.samples).toEqual(sent);
    expect(reading.dropped.map((s) => s.values)).toEqual([[0, 1, 2]]);
  });

  // A slot whose memory held something else (values no sample had), not followed by the end: the
  // outlet's service port tells that it is gone, in each of its ways.
  test.for([
    ['its closed port refuses the probe', 'stopService', 0],
    ['its port taken by a new outlet (answers time probes, not its uid)', 'givePortAway', 0],
    // Not before the probes' patience: a live outlet's answer may take that long.
    ['its port answering nothing at all, after the patience', 'silenceService', HOLD_MS + 1900],
  ] as const)(
    'a close sample of stray bytes the outlet does not follow with the end: left out, %s',
    async ([, how, atLeastMs]) => {
      const { outlet, reading, socket } = await setup();
      const sent = pushed(50);
      socket.write(encode(sent));
      await reading.until(50);
      outlet[how]();
      const goneFrom = Date.now();
      socket.write(encode([{ t: 100.2, values: [6.9e-310, -1.2345e200, 42] }]));
      expect(await reading.ended).toBe('the outlet stopped answering');
      expect(Date.now() - goneFrom).toBeGreaterThanOrEqual(atLeastMs);
      expect(reading.samples).toEqual(sent);
      expect(reading.dropped).toEqual([{ timestamp: 100.2, values: [6.9e-310, -1.2345e200, 42] }]);
    },
  );

  test('a live outlet whose answers come late (700 ms) keeps its feed and the last sample before a pause', async () => {
    const { outlet, reading, socket } = await setup();
    const first = pushed(30);
    socket.write(encode(first));
    // Answered at once: the outlet's service port is known to answer.
    await reading.until(30);
    outlet.answerAfter(700);
    const then = pushed(10, 30);
    socket.write(encode(then));
    // The last one held until the late answer: the outlet runs, so the sample is real.
    await reading.until(40);
    reading.feed.close();
    expect(reading.samples).toEqual([...first, ...then]);
    expect(reading.dropped).toEqual([]);
    expect(await Promise.race([reading.ended, Promise.resolve('open')])).toBe('open');
  });

  test('samples the outlet sent always pass: a flat signal while it runs, the last one before it closes', async () => {
    const { reading, socket } = await setup();
    const flat = Array.from({ length: 20 }, (_, k) => ({ t: 100 + k / RATE, values: [0, 0, 0] }));
    socket.write(encode(flat));
    // The last sample is held until the outlet answers a query for its uid: it still runs.
    await reading.until(20);
    const sent = pushed(10, 20);
    socket.write(encode(sent));
    await reading.until(30);
    socket.end();
    await reading.ended;
    expect(reading.samples).toEqual([...flat, ...sent]);
    expect(reading.dropped).toEqual([]);
  });
});

describe('the log of a sample left out at a close', () => {
  test('does not claim the outlet never pushed it: with liblsl 1.12-1.15 it may be a real sample; it names the counter', () => {
    const note = leftOutNote({ timestamp: 12.5, values: [1, 2] }, true);
    expect(note).not.toContain('never pushed');
    expect(note).toContain('timestamp 12.500000, values 1, 2');
    expect(note).toContain('counted in closeSamplesDropped');
    expect(note).toContain('less than 0.1 s before the close, so this may have been a real sample');
    expect(leftOutNote({ timestamp: 12.5, values: [1, 2] }, false)).not.toContain('values');
  });
});

/**
 * Fuzzing every route of the OpenAPI document (docs/api.md §Errors, §Fuzzing): the service as
 * `startServer` wires it (every plugin, the real worker runtime, the simulated headset), requests
 * generated from its own GET /openapi.json and mutated (test/support/openapi-fuzz.ts), most
 * through `app.inject` and a slice of transport-level faults (truncated bodies, wrong
 * Content-Length, broken chunking) over a real socket. Every answer is 2xx, or a 4xx (a documented
 * 503/507) carrying the error envelope; the service keeps answering; and a stream running through
 * it all (signal generator → WebSocket, read by a real client) loses no frame.
 *
 * FUZZ_SEED replays a run (the seed is printed with any failure); FUZZ_RUNS sets the number of
 * inject requests (`npm run fuzz -- --long` runs many more).
 */
import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { DEFAULTS } from '../../src/service/config.js';
import { HTTP_STATUS } from '../../src/platform/http/statuses.js';
import { createSimulatedHeadset } from '../../src/device/simulated/index.js';
import { type RunningServer, startServer } from '../../src/service/server.js';
import {
  answerProblem,
  describeRequest,
  type FuzzRequest,
  type Operation,
  operationsOf,
  type Pools,
  requestFor,
  Rng,
} from '../support/openapi-fuzz.js';
import { eventually } from '../support/wait.js';
import { STREAM_HOST } from '../support/stream-host.js';
import { scratchDir } from '../support/scratch.js';

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const RUNS = Number(process.env.FUZZ_RUNS ?? 1500);
const SOCKET_RUNS = Number(process.env.FUZZ_SOCKET_RUNS ?? Math.max(60, Math.round(RUNS / 25)));

const GUARD_ID = 'f0f0f0f0-0000-4000-8000-00000000beef';
const TARGETS = ['0d9a7c1e-2b3f-4a5b-8c6d-7e8f9a0b1c2d', '1e8b6d2f-3c4a-4b5c-9d7e-8f9a0b1c2d3e'];

let server: RunningServer;
let operations: Operation[];
const dataDir = scratchDir('headsetd-fuzz');

/** Reads the guard stream's WebSocket: every frame's seq. */
class GuardClient {
  readonly seqs: number[] = [];
  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data: Buffer) => {
      this.seqs.push((JSON.parse(data.toString('utf8')) as { seq: number }).seq);
    });
  }

  static async open(port: number): Promise<GuardClient> {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/`);
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    return new GuardClient(socket);
  }

  /** Resolves once `count` more frames have arrived. */
  async more(count: number): Promise<void> {
    const target = this.seqs.length + count;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`guard stream: no ${count} more frames`));
      }, 20_000);
      const check = () => {
        if (this.seqs.length < target) return;
        clearTimeout(timer);
        this.socket.off('message', check);
        resolve();
      };
      this.socket.on('message', check);
    });
  }
}

let guard: GuardClient;

async function inject(method: string, url: string, payload?: unknown) {
  return server.app.inject({
    method: method as 'GET',
    url,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

/** Frames the guard's pipe holds: above the generator's catch-up after a stall (MAX_BACKLOG_MS). */
const GUARD_PIPE_CAPACITY = 128;

function streamDoc(id: string, withSocket: boolean) {
  return {
    id,
    meta: { name: 'fuzz target' },
    nodes: [
      {
        id: 'gen',
        executable: 'signal-generator',
        config: { sampleRate: 250, amplitudes: [1], frequencies: [10] },
      },
      withSocket
        ? { id: 'ws', executable: 'websocket', config: { port: 0 } }
        : { id: 'log', executable: 'logger', config: {} },
    ],
    // The guard's pipe holds more than the generator emits at once after a stall of its thread (it
    // catches up at most 1 s, 84 frames at 250 Hz, and skips the rest, seq unbroken), so that a busy
    // machine never makes the pipe drop a frame: a gap in seq is then the service's fault.
    pipes: [
      {
        id: 'p1',
        source: 'gen',
        destination: withSocket ? 'ws' : 'log',
        ...(withSocket ? { capacity: GUARD_PIPE_CAPACITY } : {}),
      },
    ],
  };
}

/**
 * The fuzz's own streams exist again (a run may have deleted or replaced them), and the streams
 * it made besides (new ids, quick streams) are deleted: the fuzz checks answers, it is not a load
 * test, and 256 streams of generators at 16 kHz would only measure the machine.
 */
async function restoreTargets(): Promise<void> {
  const list = (await inject('GET', '/stream/streams')).json<{ streams: { id: string }[] }>();
  // FUZZ_KEEP_STREAMS=1 keeps them, to study the service under everything a run creates.
  for (const { id } of process.env.FUZZ_KEEP_STREAMS === '1' ? [] : list.streams) {
    if (id !== GUARD_ID && !TARGETS.includes(id)) await inject('DELETE', `/stream/streams/${id}`);
  }
  for (const id of TARGETS) {
    const read = await inject('GET', `/stream/streams/${id}`);
    if (read.statusCode === 404) await inject('POST', '/stream/streams', streamDoc(id, false));
  }
}

const POOLS: Pools = {
  streamIds: TARGETS,
  nodeIds: ['gen', 'log', 'ws', 'filt', 'n1'],
  recordingNames: ['fuzz.bdf', 'none.csv'],
};

beforeAll(async () => {
  server = await startServer({
    workerEntry: STREAM_HOST,
    settings: { ...DEFAULTS, port: 0, dataDir },
    logger: pino({ level: 'silent' }),
    // On the real clock: a faster device clock makes EEG at 16 kHz a load no headset produces,
    // and the fuzz would measure that instead of the answers.
    device: createSimulatedHeadset({ seed: 11 }),
  });
  const document = await inject('GET', '/openapi.json');
  operations = operationsOf(document.json());
  // The guard: a generator feeding a WebSocket, read for the whole run; the fuzz never names it.
  expect((await inject('POST', '/stream/streams', streamDoc(GUARD_ID, true))).statusCode).toBe(200);
  const started = await inject('POST', `/stream/streams/${GUARD_ID}/signal`, { signal: 'start' });
  expect(started.statusCode, started.body).toBe(200);
  // The start may answer before the WebSocket node has bound its port (a busy machine).
  const port = await eventually(
    async () => {
      const status = (await inject('GET', `/stream/streams/${GUARD_ID}/status`)).json<{
        status: { nodes: { id: string; port?: number }[] };
      }>();
      return status.status.nodes.find((n) => n.id === 'ws')?.port;
    },
    20_000,
    'the guard stream to report its port',
  );
  guard = await GuardClient.open(port);
  await guard.more(2);
  await restoreTargets();
}, 30_000);

afterAll(async () => {
  (guard as GuardClient | undefined)?.socket.terminate();
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A deadline for one answer (a stuck request, not a duration asserted). */
const ANSWER_DEADLINE_MS = 15_000;

async function answered<T>(promise: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => {
      resolve(undefined);
    }, ANSWER_DEADLINE_MS);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Room for the long mode: a few ms per request on a slow machine. */
const RUN_TIMEOUT_MS = Math.max(120_000, RUNS * 10);

function failureReport(failures: string[], what: string): string {
  return `${failures.length} ${what} (seed ${SEED}; replay with FUZZ_SEED=${SEED}):\n${failures.slice(0, 15).join('\n')}`;
}

describe(`OpenAPI fuzz (seed ${SEED})`, () => {
  it('walks every path and method of the document', () => {
    expect(operations.length).toBeGreaterThan(90);
    const methods = new Set(operations.map((o) => o.method));
    expect([...methods].sort()).toEqual(['DELETE', 'GET', 'PATCH', 'POST', 'PUT']);
  });

  it(
    `answers ${RUNS} generated requests with 2xx or the envelope, never a 5xx`,
    async () => {
      const r = new Rng(SEED);
      const failures: string[] = [];
      const perOperation = new Map<string, number>();
      const stats = new Map<number, number>();
      const slow: [number, string][] = [];
      for (let i = 0; i < RUNS; i++) {
        if (i % 100 === 99) await restoreTargets();
        if (process.env.FUZZ_DEBUG && i % 1000 === 0)
          console.log(`#${i} ${new Date().toISOString()} guard frames ${guard.seqs.length}`);
        // Every operation in turn, then at random: each is walked at least RUNS / operations times.
        const op = i < operations.length ? (operations[i] as Operation) : r.pick(operations);
        const request: FuzzRequest = requestFor(op, r, POOLS);
        if (process.env.FUZZ_TRACE !== undefined && i >= Number(process.env.FUZZ_TRACE))
          console.log(`#${i} ${describeRequest(request).slice(0, 400)}`);
        const key = `${op.method} ${op.path}`;
        perOperation.set(key, (perOperation.get(key) ?? 0) + 1);
        const t0 = performance.now();
        const answer = await answered(
          server.app.inject({
            method: request.method as 'GET',
            url: request.url,
            headers: request.headers,
            ...(request.payload === undefined ? {} : { payload: request.payload }),
          }),
        );
        if (answer === undefined) {
          // A request that is never answered is a failure of its own, and may have wedged the rest.
          failures.push(`#${i} no answer within ${ANSWER_DEADLINE_MS} ms: ${describeRequest(request)}`);
          break;
        }
        if (process.env.FUZZ_DEBUG) {
          const ms = performance.now() - t0;
          stats.set(answer.statusCode, (stats.get(answer.statusCode) ?? 0) + 1);
          slow.push([ms, `${describeRequest(request).slice(0, 160)} → ${answer.statusCode}`]);
        }
        const problem = answerProblem(
          request,
          answer.statusCode,
          answer.headers['content-type'] as string | undefined,
          answer.body,
          HTTP_STATUS,
        );
        if (problem !== undefined)
          failures.push(
            `#${i} ${problem}: ${describeRequest(request)} → ${answer.statusCode} ${answer.body.slice(0, 300)}`,
          );
      }
      if (process.env.FUZZ_DEBUG) {
        console.log([...stats.entries()].sort());
        console.log(
          slow
            .sort((a, b) => b[0] - a[0])
            .slice(0, 25)
            .map(([ms, d]) => `${ms.toFixed(0)} ${d}`)
            .join('\n'),
        );
      }
      expect(perOperation.size).toBe(operations.length);
      expect(failures, failureReport(failures, 'bad answers')).toEqual([]);
    },
    RUN_TIMEOUT_MS,
  );

  it(
    `answers ${SOCKET_RUNS} transport-level faults over a real socket with the envelope, or closes`,
    async () => {
      const r = new Rng(SEED ^ 0x5eed);
      const failures: string[] = [];
      const withBody = operations.filter((o) => o.body !== undefined);
      for (let i = 0; i < SOCKET_RUNS; i++) {
        const op = r.pick(withBody);
        const request = requestFor(op, r, POOLS);
        const fault = transportFault(request, r);
        const responses = parseResponses(await rawExchange(server.port, fault.bytes));
        for (const response of responses) {
          const problem = answerProblem(
            request,
            response.status,
            response.headers['content-type'],
            response.body,
            HTTP_STATUS,
          );
          if (problem !== undefined)
            failures.push(
              `#${i} ${fault.name}: ${problem}: ${describeRequest(request)} → ${response.status} ${response.body.slice(0, 200)}`,
            );
        }
      }
      expect(failures, failureReport(failures, 'bad answers on the socket')).toEqual([]);
      // Still serving, on a new connection.
      const health = parseResponses(
        await rawExchange(
          server.port,
          Buffer.from('GET /system/healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'),
        ),
      );
      expect(health[0]?.status).toBe(200);
    },
    RUN_TIMEOUT_MS,
  );

  it('kept the guard stream running without a gap in seq', async () => {
    await guard.more(5);
    const gaps = guard.seqs.flatMap((seq, i) => (i > 0 && seq !== (guard.seqs[i - 1] ?? 0) + 1 ? [i] : []));
    expect(gaps, `seq gaps at ${gaps.join(', ')} of ${guard.seqs.length} frames`).toEqual([]);
    const status = (await inject('GET', `/stream/streams/${GUARD_ID}/status`)).json<{
      status: { state: string };
    }>();
    expect(status.status.state).toBe('running');
  });
});

/** A request's bytes as written on the wire, with one fault at the transport level. */
function transportFault(request: FuzzRequest, r: Rng): { name: string; bytes: Buffer } {
  const body = request.payload === undefined ? Buffer.alloc(0) : Buffer.from(request.payload);
  const head = (extra: string[]) =>
    Buffer.from(
      [
        `${request.method} ${request.url} HTTP/1.1`,
        'Host: 127.0.0.1',
        ...(request.headers['content-type'] === undefined
          ? []
          : [`Content-Type: ${request.headers['content-type']}`]),
        ...extra,
        '',
        '',
      ].join('\r\n'),
    );
  const half = body.subarray(0, Math.floor(body.length / 2));
  const cases: [string, () => Buffer][] = [
    [
      'Content-Length beyond the body (truncated)',
      () => Buffer.concat([head([`Content-Length: ${body.length + 10}`]), half]),
    ],
    [
      'Content-Length short of the body',
      () => Buffer.concat([head([`Content-Length: ${half.length}`]), body]),
    ],
    [
      'Content-Length not a number',
      () =>
        Buffer.concat([
          head([`Content-Length: ${r.pick(['abc', '-1', '1e3', '99999999999999999999', ' 5'])}`]),
          body,
        ]),
    ],
    [
      'two Content-Lengths',
      () =>
        Buffer.concat([head([`Content-Length: ${body.length}`, `Content-Length: ${body.length + 1}`]), body]),
    ],
    [
      'Content-Length and chunked',
      () => Buffer.concat([head([`Content-Length: ${body.length}`, 'Transfer-Encoding: chunked']), body]),
    ],
    [
      'bad chunk size',
      () =>
        Buffer.concat([
          head(['Transfer-Encoding: chunked']),
          Buffer.from('zz\r\n'),
          body,
          Buffer.from('\r\n0\r\n\r\n'),
        ]),
    ],
    [
      'chunked, never finished',
      () =>
        Buffer.concat([
          head(['Transfer-Encoding: chunked']),
          Buffer.from(`${half.length.toString(16)}\r\n`),
          half,
          Buffer.from('\r\n'),
        ]),
    ],
    [
      'chunked, whole',
      () =>
        Buffer.concat([
          head(['Transfer-Encoding: chunked']),
          Buffer.from(`${body.length.toString(16)}\r\n`),
          body,
          Buffer.from('\r\n0\r\n\r\n'),
        ]),
    ],
    [
      'a body over 1 MiB',
      () =>
        Buffer.concat([head([`Content-Length: ${2 * 1024 * 1024}`]), Buffer.alloc(2 * 1024 * 1024, 0x20)]),
    ],
    ['a declared 1 GiB body', () => Buffer.concat([head(['Content-Length: 1073741824']), body])],
    [
      'gzip that is not',
      () => Buffer.concat([head([`Content-Length: ${body.length}`, 'Content-Encoding: gzip']), body]),
    ],
    [
      'pipelined garbage',
      () =>
        Buffer.concat([
          head([`Content-Length: ${body.length}`]),
          body,
          Buffer.from('\x00\x01GARBAGE / HTTP/9\r\n\r\n'),
        ]),
    ],
    ['NUL in a header', () => Buffer.concat([head([`Content-Length: ${body.length}`, 'X-A: a\x00b']), body])],
    ['a bare LF request', () => Buffer.from(`${request.method} ${request.url} HTTP/1.1\nHost: x\n\n`)],
  ];
  const [name, build] = r.pick(cases);
  return { name, bytes: build() };
}

/** Writes `bytes`, half-closes, and collects everything the server sends until it closes. */
async function rawExchange(port: number, bytes: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    // A deadline for a stuck exchange, not a duration asserted.
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('the server neither answered nor closed'));
    }, 20_000);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {
      // A reset after the server refused the rest is an answer too: what arrived is judged.
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    socket.end(bytes);
  });
}

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** HTTP/1.1 responses in a byte stream (Content-Length bodies; what the service sends). */
function parseResponses(bytes: Buffer): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = bytes;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const [statusLine = '', ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const body = rest.subarray(end + 4, end + 4 + length).toString('utf8');
    out.push({ status: Number(statusLine.split(' ')[1]), headers, body });
    rest = rest.subarray(end + 4 + length);
  }
  return out;
}

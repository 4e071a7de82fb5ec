/**
 * An LSL inlet: reads a resolved stream's full info, opens its data feed (protocol 1.10, checking
 * the two test-pattern samples) and keeps the time correction of the outlet's clock up to date
 * with liblsl's probes (8 probes, the one of least round-trip time wins, every few seconds).
 */
import dgram from 'node:dgram';
import { connect, type Socket } from 'node:net';
import { lslNow } from './clock.js';
import { CloseSampleGuard, HOLD_MS, outletAnswers, type Sample } from './close-sample.js';
import { SampleReader110, testPatternValues, TEST_PATTERN_TIMESTAMP, valueSize } from './codec.js';
import { parseInfoXml, type ReadableFormat } from './info.js';
import type { ResolvedStream } from './resolver.js';

const PROBES = 8;
const PROBE_INTERVAL_MS = 64;
const PROBE_WAIT_MS = 500;

/** Reads the full info (desc included) over TCP. */
export async function fetchFullInfo(stream: ResolvedStream, timeoutMs: number): Promise<ResolvedStream> {
  const text = await new Promise<string>((resolve, reject) => {
    const socket = connect(stream.v4dataPort, stream.v4address);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no full info within the time allowed'));
    }, timeoutMs);
    socket.on('connect', () => socket.write('LSL:fullinfo\r\n'));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
      socket.destroy();
    });
  });
  const info = parseInfoXml(text);
  if (info === undefined) throw new Error('the outlet sent a full info that is not an LSL stream info');
  return { ...info, v4address: stream.v4address };
}

/** The offset to add to the outlet's timestamps to put them on this machine's LSL clock, s. */
export async function measureTimeCorrection(stream: ResolvedStream): Promise<number | undefined> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, resolve));
  const waveId = Math.floor(Math.random() * 1e9);
  let best: { rtt: number; offset: number } | undefined;
  let answers = 0;
  socket.on('message', (message) => {
    const t3 = lslNow();
    const [id, t0, t1, t2] = message.toString().trim().split(/\s+/).map(Number);
    if (id !== waveId || t0 === undefined || t1 === undefined || t2 === undefined) return;
    answers++;
    const rtt = t3 - t0 - (t2 - t1);
    const offset = (t1 - t0 + (t2 - t3)) / 2;
    if (best === undefined || rtt < best.rtt) best = { rtt, offset };
  });
  socket.on('error', () => undefined);
  try {
    for (let i = 0; i < PROBES; i++) {
      socket.send(
        `LSL:timedata\r\n${waveId} ${lslNow()}\r\n`,
        stream.v4servicePort,
        stream.v4address,
        () => undefined,
      );
      await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
    }
    await new Promise((resolve) => setTimeout(resolve, PROBE_WAIT_MS - PROBE_INTERVAL_MS));
  } finally {
    socket.close();
  }
  // liblsl wants most probes answered before it trusts the result.
  return best !== undefined && answers >= PROBES - 2 ? -best.offset : undefined;
}

export interface Feed {
  /** Closes the feed; `onEnd` is not called for a feed closed this way. */
  close(): void;
  /**
   * Before a close of ours: decides now about the sample held back (the last of the last batch),
   * as the hold would, by asking the outlet whether it still runs; passes it on when it does.
   * A reader that stops keeps its last real sample instead of dropping it.
   */
  settle(): Promise<void>;
}

/**
 * Opens the data feed of a stream in one of the READABLE_FORMATS. `onSamples` gets each batch of samples as it arrives (row-major values and
 * the outlet's timestamps), but for the sample liblsl sends when its outlet closes
 * (close-sample.ts), given to `onCloseSample` instead; `onEnd` a reason when the feed ends on its
 * own (the outlet went away, or answered that it is another stream now); `onOpen` once the outlet
 * has sent its test patterns (it has a queue for this feed: every sample it pushes from now on
 * comes).
 */
export function openFeed(
  stream: ResolvedStream,
  maxBufferedSamples: number,
  onSamples: (values: number[], timestamps: number[]) => void,
  onEnd: (reason: string) => void,
  onCloseSample: (sample: Sample) => void = () => undefined,
  onOpen: () => void = () => undefined,
): Feed {
  const format = stream.channelFormat as ReadableFormat;
  const channels = stream.channelCount;
  const socket: Socket = connect(stream.v4dataPort, stream.v4address);
  socket.setNoDelay(true);
  let closedByUs = false;
  let header = Buffer.alloc(0);
  let headerDone = false;
  let patterns = 0;
  const reader = new SampleReader110(format, channels, stream.nominalSrate);
  const guard = new CloseSampleGuard();
  // Whether the outlet's service port answers at all (a firewall may keep its UDP out): only then
  // does silence there mean that the outlet is gone.
  let serviceAnswers = false;
  void outletAnswers(stream.v4address, stream.v4servicePort, stream.uid).then((answers) => {
    serviceAnswers ||= answers;
  });
  let holdTimer: NodeJS.Timeout | undefined;
  const pass = (samples: readonly Sample[]) => {
    if (samples.length === 0) return;
    const values: number[] = [];
    for (const sample of samples) for (const v of sample.values) values.push(v);
    onSamples(
      values,
      samples.map((sample) => sample.timestamp),
    );
  };
  const end = (reason: string) => {
    if (closedByUs) return;
    closedByUs = true;
    clearTimeout(holdTimer);
    socket.destroy();
    // Nothing came after the held sample before the outlet went: liblsl's close sample.
    const closeSample = guard.take();
    if (closeSample !== undefined) onCloseSample(closeSample);
    onEnd(reason);
  };
  /** A held sample not followed by another: passed on if the outlet still runs, else the feed ends. */
  const checkHeld = () => {
    const generation = guard.generation;
    void outletAnswers(stream.v4address, stream.v4servicePort, stream.uid).then((answers) => {
      if (closedByUs || guard.generation !== generation) return;
      if (answers || !serviceAnswers) pass([guard.take() as Sample]);
      else end('the outlet stopped answering');
    });
  };
  socket.on('connect', () => {
    socket.write(
      `LSL:streamfeed/110 ${stream.uid}\r\nNative-Byte-Order: 1234\r\nEndian-Performance: 0\r\nHas-IEEE754-Floats: 1\r\nSupports-Subnormals: 1\r\nValue-Size: ${valueSize(format)}\r\nData-Protocol-Version: 110\r\nMax-Buffer-Length: ${maxBufferedSamples}\r\nMax-Chunk-Length: 0\r\nHostname: headsetd\r\nSource-Id: ${stream.sourceId}\r\nSession-Id: ${stream.sessionId}\r\n\r\n`,
    );
  });
  socket.on('data', (chunk: Buffer) => {
    let rest = chunk;
    if (!headerDone) {
      header = Buffer.concat([header, chunk]);
      const endOfHeader = header.indexOf('\r\n\r\n');
      if (endOfHeader < 0) {
        if (header.length > 16 * 1024) end('the outlet answered with an overlong header');
        return;
      }
      const lines = header.subarray(0, endOfHeader).toString('latin1').split('\r\n');
      const status = (lines[0] ?? '').split(' ');
      if (status[0]?.startsWith('LSL/') !== true || Number(status[1]) !== 200) {
        end(`the outlet refused the feed: ${lines[0] ?? ''}`);
        return;
      }
      const fields = new Map(
        lines.slice(1).map((line) => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()] as const;
        }),
      );
      if ((fields.get('data-protocol-version') ?? '110') !== '110') {
        end('the outlet offers only protocol 1.00 for this feed');
        return;
      }
      const order = fields.get('byte-order') ?? '1234';
      if (order !== '1234' && order !== '0') {
        end(`the outlet sends byte order ${order}`);
        return;
      }
      headerDone = true;
      rest = header.subarray(endOfHeader + 4);
    }
    reader.push(rest);
    const batch: Sample[] = [];
    try {
      for (let sample = reader.next(); sample !== undefined; sample = reader.next()) {
        if (patterns < 2) {
          const expected = testPatternValues(format, channels, patterns === 0 ? 4 : 2);
          const same =
            sample.timestamp === TEST_PATTERN_TIMESTAMP &&
            sample.values.every(
              (v, i) => v === (format === 'float32' ? Math.fround(expected[i] ?? 0) : expected[i]),
            );
          if (!same) {
            end('the test-pattern samples do not match');
            return;
          }
          patterns++;
          if (patterns === 2) onOpen();
          continue;
        }
        batch.push(sample);
      }
    } catch (error) {
      end((error as Error).message);
      return;
    }
    if (batch.length === 0) return;
    pass(guard.accept(batch));
    clearTimeout(holdTimer);
    if (guard.holding) holdTimer = setTimeout(checkHeld, HOLD_MS);
  });
  socket.on('error', (error) => {
    end(error.message);
  });
  socket.on('close', () => {
    end('the outlet closed the connection');
  });
  return {
    close: () => {
      closedByUs = true;
      clearTimeout(holdTimer);
      socket.destroy();
    },
    settle: () => {
      if (closedByUs || !guard.holding) return Promise.resolve();
      clearTimeout(holdTimer);
      const generation = guard.generation;
      return outletAnswers(stream.v4address, stream.v4servicePort, stream.uid).then((answers) => {
        if (closedByUs || guard.generation !== generation) return;
        if (answers || !serviceAnswers) pass([guard.take() as Sample]);
      });
    },
  };
}

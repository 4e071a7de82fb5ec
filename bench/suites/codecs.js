/**
 * Codec benchmarks: what a frame costs to put on the wire and take off it.
 * - External-node protocol (docs/node-protocol.md): NDJSON vs binary, encode + streaming decode of
 *   one `frame` message of 21 channels × 25 samples (100 ms at 250 Hz).
 * - Websocket output node: `frameJsonText(frame)` (format `json`, the default; the same text as
 *   `JSON.stringify(frameToJson(frame))`) vs
 *   `encodeFrameBinary` (format `binary`), and the client's matching decode.
 * The ratio (text ÷ binary) is the point: it is what choosing the binary form saves.
 */
import { Buffer } from 'node:buffer';
import { createDecoder, encodeMessage } from '../../dist/core/protocol/codec.js';
import { frameFromJson, frameJsonText } from '../../dist/core/frame.js';
import { decodeFrameBinary, encodeFrameBinary } from '../../dist/core/frame-binary.js';
import { compare, sink } from '../lib/measure.js';
import { result } from '../lib/result.js';

const ELECTRODES = 'PZ O1 O2 P3 P4 T5 T6 C3 C4 T3 T4 CMS DRL CZ F7 F8 F3 F4 FP1 FP2 FZ'.split(' ');
const SAMPLES = 25;

/** A frame of EEG-like values (µV with float32 noise digits, as the filter node emits them). */
function eegFrame() {
  const data = new Float32Array(SAMPLES * ELECTRODES.length);
  let state = 12345;
  for (let i = 0; i < data.length; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    data[i] = (state / 2 ** 32 - 0.5) * 200;
  }
  return { seq: 1234, timestamp: Date.now(), sampleRate: 250, channels: ELECTRODES, data };
}

/** Encode + decode ops of one protocol encoding; a fresh message object each time, as in use. */
function protocolOps(encoding, frame) {
  const decoder = createDecoder(encoding);
  const bytes = encodeMessage(encoding, { type: 'frame', port: 'in', frame });
  return {
    bytes: bytes.length,
    encode: (n) => {
      for (let k = 0; k < n; k++)
        sink.value += encodeMessage(encoding, { type: 'frame', port: 'in', frame }).length;
    },
    decode: (n) => {
      for (let k = 0; k < n; k++) sink.value += decoder.push(bytes).length;
    },
  };
}

async function protocol(frame) {
  const ndjson = protocolOps('ndjson', frame);
  const binary = protocolOps('binary', frame);
  const out = [];
  for (const side of ['encode', 'decode']) {
    const r = await compare(ndjson[side], binary[side], { maxMs: 2500, rounds: 7 });
    out.push(
      result({
        id: `codecs.protocol.${side}`,
        title: `node protocol ${side}, frame message of ${ELECTRODES.length} ch × ${SAMPLES} samples`,
        ratio: r.ratio,
        ratioOf: `NDJSON ${side} CPU ÷ binary ${side} CPU`,
        // The binary form exists to be cheaper than text: it must stay clearly so.
        min: 3,
        absolute: {
          ndjsonNs: r.subjectNs,
          binaryNs: r.referenceNs,
          ndjsonBytes: ndjson.bytes,
          binaryBytes: binary.bytes,
        },
      }),
    );
  }
  return out;
}

async function websocket(frame) {
  const text = frameJsonText(frame);
  const bytes = encodeFrameBinary(frame);
  const encode = await compare(
    (n) => {
      for (let k = 0; k < n; k++) sink.value += frameJsonText(frame).length;
    },
    (n) => {
      for (let k = 0; k < n; k++) sink.value += encodeFrameBinary(frame).length;
    },
    { maxMs: 2500, rounds: 7 },
  );
  const decode = await compare(
    (n) => {
      for (let k = 0; k < n; k++) sink.value += frameFromJson(JSON.parse(text)).data.length;
    },
    (n) => {
      for (let k = 0; k < n; k++) sink.value += decodeFrameBinary(bytes).data.length;
    },
    { maxMs: 2500, rounds: 7 },
  );
  const sizes = { jsonBytes: Buffer.byteLength(text), binaryBytes: bytes.length };
  return [
    result({
      id: 'codecs.websocket.encode',
      title: `websocket node frame encode, ${ELECTRODES.length} ch × ${SAMPLES} samples`,
      ratio: encode.ratio,
      ratioOf: 'frameJsonText CPU ÷ encodeFrameBinary CPU',
      min: 3,
      // Not guarded: the binary encoder allocates a fresh 2 KB buffer per frame, and its CPU per
      // frame is bimodal between runs of the same build (about 2.4 or 5.3 µs, with the JSON side
      // steady at 19–20 µs), so the ratio read 3.8 to 11.2 on one build in one hour.
      advisory: true,
      absolute: { jsonNs: encode.subjectNs, binaryNs: encode.referenceNs, ...sizes },
    }),
    result({
      id: 'codecs.websocket.decode',
      title: `websocket client frame decode, ${ELECTRODES.length} ch × ${SAMPLES} samples`,
      ratio: decode.ratio,
      ratioOf: 'JSON.parse + frameFromJson CPU ÷ decodeFrameBinary CPU',
      min: 3,
      absolute: { jsonNs: decode.subjectNs, binaryNs: decode.referenceNs, ...sizes },
    }),
  ];
}

/** Runs the codec suite; returns its results. */
export async function runCodecs(log) {
  const frame = eegFrame();
  const out = [];
  for (const r of [...(await protocol(frame)), ...(await websocket(frame))]) {
    out.push(r);
    log(r);
  }
  return out;
}

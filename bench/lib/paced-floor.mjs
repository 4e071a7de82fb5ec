/* global console */
/**
 * The paced anchor of `cpu.standard-pipeline.*`: the pipeline's work written plainly
 * (bench/lib/pipeline-floor.js) in one thread, woken like a device every frame period. `full`:
 * each wake makes the frame, filters it, encodes its JSON, writes it to the TCP client connected to
 * it and appends its BDF samples; `pace`: each wake only makes the samples (acquisition alone).
 * Their difference is the least one thread adds per second for the pipeline on this machine, the
 * cost of a wake-up and a socket write per frame included. `handoff`: each wake makes the samples
 * and hands a copy of them to a Node.js worker thread (transferred, as the device's thread hands
 * its frames to a stream's worker), which only reads them: `handoff` − `pace` is what the shape
 * of the service (a frame made in one thread, worked on in another) costs before any work. Run as
 * a child: `node paced-floor.mjs full|pace|handoff RATE ROWS FILE`; prints
 * `paced floor listening on PORT`.
 */
import { closeSync, openSync } from 'node:fs';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setTimeout } from 'node:timers';
import { Worker } from 'node:worker_threads';
import { pipelineFloor } from './pipeline-floor.js';

const [mode, rateText, rowsText, file] = process.argv.slice(2);
const rate = Number(rateText);
const rows = Number(rowsText);
const fd = openSync(file, 'w');
const { frame, samplesOnly } = pipelineFloor(rate, rows, fd);
const periodMs = (rows * 1000) / rate;
const clients = new Set();
/** The reading thread of `handoff`: it takes each frame's samples and reads one value. */
const reader =
  mode === 'handoff'
    ? new Worker(
        `const { parentPort } = require('node:worker_threads');
         let sum = 0;
         parentPort.on('message', (m) => { sum += new Float32Array(m.data)[0]; });`,
        { eval: true },
      )
    : undefined;
let seq = 0;

const server = net.createServer((socket) => {
  socket.setNoDelay(true);
  clients.add(socket);
  socket.on('close', () => clients.delete(socket));
  socket.on('error', () => socket.destroy());
});
server.listen(0, '127.0.0.1', () => {
  console.log(`paced floor listening on ${server.address().port}`);
});

const start = performance.now();
let n = 0;
const tick = () => {
  n++;
  if (mode === 'full') {
    const text = frame();
    for (const socket of clients) socket.write(text);
  } else if (reader !== undefined) {
    const samples = Float32Array.from(samplesOnly());
    reader.postMessage({ seq: seq++, timestamp: Date.now(), data: samples.buffer }, [samples.buffer]);
  } else {
    samplesOnly();
  }
  setTimeout(tick, Math.max(0, start + n * periodMs - performance.now()));
};
setTimeout(tick, periodMs);
process.on('SIGTERM', () => {
  closeSync(fd);
  process.exit(0);
});

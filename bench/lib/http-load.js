/**
 * A small, bounded HTTP load client on node:http (no wrk, no packages): a fixed number of requests,
 * a fixed concurrency over keep-alive sockets, a per-request timeout and an overall deadline.
 * Latency is wall time from request to the end of the response body (what a client sees).
 */
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import { URL } from 'node:url';
import http from 'node:http';

/** JSON request helper for setting up the service (POST/DELETE bodies, small answers). */
export function requestJson(baseUrl, method, path, body, agent) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = http.request(
      new URL(path, baseUrl),
      {
        method,
        agent,
        timeout: 10_000,
        headers:
          payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': payload.length },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            resolve({ status: res.statusCode, body: text.length > 0 ? JSON.parse(text) : undefined });
          } catch (error) {
            reject(error);
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', reject);
    req.end(payload);
  });
}

function timedGet(url, agent) {
  return new Promise((resolve) => {
    const start = performance.now();
    const req = http.get(url, { agent, timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => resolve({ ms: performance.now() - start, ok: res.statusCode === 200 }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ ms: performance.now() - start, ok: false }));
  });
}

/**
 * GETs `url` `total` times with `concurrency` requests in flight. With `minMs`, keeps going after
 * `total` until `minMs` have passed (at most `maxTotal` requests), so a phase can cover a metrics
 * window. Stops early at `deadlineMs` whatever the count. Returns every successful request's
 * latency (ms), the count of failures and the phase's duration.
 */
export async function loadGet(url, { total, concurrency, minMs = 0, maxTotal = total, deadlineMs = 30_000 }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies = [];
  let failures = 0;
  let issued = 0;
  const began = performance.now();
  const stopAt = began + deadlineMs;
  const more = () => {
    const now = performance.now();
    if (now >= stopAt || issued >= maxTotal) return false;
    return issued < total || now - began < minMs;
  };
  const worker = async () => {
    while (more()) {
      issued++;
      const { ms, ok } = await timedGet(url, agent);
      if (ok) latencies.push(ms);
      else failures++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  agent.destroy();
  return { latencies, failures, seconds: (performance.now() - began) / 1000 };
}

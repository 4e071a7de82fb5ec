/* global console */
/**
 * The anchors of the service suite: a bare server with one route, GET /status, answering a fixed
 * JSON body, listening on 127.0.0.1 and a free port and printing its listening line as headsetd
 * does. Run as a child process: `node bare-server.mjs fastify|node [BODY_FILE]`; the body is the
 * file's bytes (the service's own status answer, for the API comparison) or a small object.
 */
import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import process from 'node:process';

const [kind = 'fastify', bodyFile] = process.argv.slice(2);
const body =
  bodyFile === undefined ? '{"success":true,"status":{"state":"running"}}' : readFileSync(bodyFile, 'utf8');

if (kind === 'node') {
  const server = http.createServer((request, response) => {
    if (request.url === '/status') {
      response.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
      });
      response.end(body);
    } else {
      response.writeHead(404).end();
    }
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    console.log(`bare node:http listening on http://127.0.0.1:${address.port}`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
} else {
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false });
  app.get('/status', async (_request, reply) => reply.type('application/json; charset=utf-8').send(body));
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  console.log(`bare fastify listening on ${address}`);
  process.on('SIGTERM', () => {
    void app.close().then(() => process.exit(0));
  });
}

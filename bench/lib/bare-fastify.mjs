/* global console */
/**
 * The anchor of the service's start-up and idle memory: a bare Fastify server with one route,
 * listening on 127.0.0.1 and a free port, printing its listening line as headsetd does. Run as a
 * child process by bench/suites/service.js.
 */
import process from 'node:process';
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/status', async () => ({ success: true, status: { state: 'running' } }));
const address = await app.listen({ host: '127.0.0.1', port: 0 });
console.log(`bare fastify listening on ${address}`);
process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});

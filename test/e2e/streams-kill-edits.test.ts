/**
 * kill -9 of the real service in the middle of a burst of concurrent stream edits (creates, PUTs,
 * nodes and pipes added, on stopped and on running streams): after a restart on the same data
 * dir every edit the service acknowledged (2xx) is there, and each stream is exactly what some
 * prefix of its client's edits made it: the last acknowledged edit, or the one in flight at the kill
 * applied whole, never a part of one. Its revision (ETag) counts exactly the edits it holds, and
 * the streams that ran before the kill run again.
 */
import { afterEach, expect, test } from 'vitest';
import { json, type Service, startService, tempDataDir } from '../support/service.js';
import { eventually } from '../support/wait.js';

const services: Service[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.stop('SIGKILL')));
});

const CLIENTS = 6;
/** Edits acknowledged in all before the kill: enough for every client to have done several. */
const KILL_AFTER = 60;

interface Shape {
  step: number;
  nodes: string[];
  pipes: string[];
}

const uuid = (client: number, n: number) =>
  `aaaaaaaa-${String(client).padStart(4, '0')}-4000-8000-${String(n).padStart(12, '0')}`;
const generator = {
  id: 'gen',
  executable: 'signal-generator',
  config: { sampleRate: 100, amplitudes: [1], frequencies: [5] },
};
const base = (id: string, step: number) => ({
  id,
  meta: { step },
  nodes: [generator, { id: 'log', executable: 'logger' }],
  pipes: [{ id: 'p', source: 'gen', destination: 'log' }],
});
const shapeOf = (stream: { meta: { step: number }; nodes: { id: string }[]; pipes: { id: string }[] }) => ({
  step: stream.meta.step,
  nodes: stream.nodes.map((n) => n.id),
  pipes: stream.pipes.map((p) => p.id),
});

/** One client's edits of its own stream, one after the other, with what each makes of it. */
class Client {
  readonly main: string;
  /** shapes[k]: the main stream after its first k edits (shapes[0]: as created). */
  readonly shapes: Shape[] = [];
  acked = 0;
  inFlight = false;
  /** Extra streams created, and whether the create was acknowledged. */
  readonly created = new Map<string, boolean>();

  constructor(
    readonly index: number,
    readonly url: string,
    readonly runs: boolean,
  ) {
    this.main = uuid(index, 0);
  }

  private async send(method: string, path: string, body: unknown): Promise<void> {
    const response = await fetch(`${this.url}/stream/streams${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  }

  /** Creates the main stream (and starts it when it runs). */
  async setUp(): Promise<void> {
    await this.send('POST', '', base(this.main, 0));
    this.shapes.push({ step: 0, nodes: ['gen', 'log'], pipes: ['p'] });
    if (this.runs) await this.send('POST', `/${this.main}/signal`, { signal: 'start' });
  }

  /** Edits until the service is gone; `onAck` hears every acknowledged edit. */
  async burst(onAck: () => void): Promise<void> {
    for (let i = 1; ; i++) {
      const last = this.shapes.at(-1)!;
      this.inFlight = true;
      try {
        switch (i % 4) {
          case 0: {
            // A create of another stream, counted apart from the main stream's edits.
            const id = uuid(this.index, i);
            this.created.set(id, false);
            await this.send('POST', '', base(id, i));
            this.created.set(id, true);
            this.inFlight = false;
            onAck();
            continue;
          }
          case 1:
            this.shapes.push({ step: i, nodes: ['gen', 'log'], pipes: ['p'] });
            await this.send('PUT', `/${this.main}`, { ...base(this.main, i), id: undefined });
            break;
          case 2:
            this.shapes.push({ ...last, nodes: [...last.nodes, `n${i}`] });
            await this.send('POST', `/${this.main}/nodes`, [{ id: `n${i}`, executable: 'logger' }]);
            break;
          default:
            this.shapes.push({ ...last, pipes: [...last.pipes, `q${i}`] });
            await this.send('POST', `/${this.main}/pipes`, [
              { id: `q${i}`, source: 'gen', destination: `n${i - 1}` },
            ]);
        }
      } catch {
        return; // the service is gone: this edit was not acknowledged
      }
      this.acked = this.shapes.length - 1;
      this.inFlight = false;
      onAck();
    }
  }
}

test('kill -9 during concurrent edits: every acknowledged edit survives, none appears half-applied', async () => {
  const dataDir = tempDataDir();
  const first = await startService({ dataDir });
  services.push(first);
  const clients = Array.from({ length: CLIENTS }, (_, i) => new Client(i + 1, first.url, i % 2 === 0));
  await Promise.all(clients.map((c) => c.setUp()));

  let acknowledged = 0;
  let killed: Promise<unknown> | undefined;
  const onAck = () => {
    acknowledged++;
    if (acknowledged >= KILL_AFTER && killed === undefined) killed = first.stop('SIGKILL');
  };
  await Promise.all(clients.map((c) => c.burst(onAck)));
  await killed;
  expect(acknowledged).toBeGreaterThanOrEqual(KILL_AFTER);
  // The kill caught edits in flight: the case this test is about.
  expect(clients.some((c) => c.inFlight)).toBe(true);

  const second = await startService({ dataDir });
  services.push(second);
  for (const client of clients) {
    const answer = await fetch(`${second.url}/stream/streams/${client.main}`);
    expect(answer.status).toBe(200);
    const { stream } = (await answer.json()) as { stream: Parameters<typeof shapeOf>[0] };
    const got = shapeOf(stream);
    // The last acknowledged edit, or the one in flight, whole.
    const allowed = client.shapes.slice(client.acked, client.inFlight ? client.acked + 2 : client.acked + 1);
    const at = allowed.findIndex((shape) => JSON.stringify(shape) === JSON.stringify(got));
    expect(at, `stream of client ${client.index}: ${JSON.stringify(got)}`).toBeGreaterThanOrEqual(0);
    // Its revision counts the edits it holds.
    expect(answer.headers.get('etag')).toBe(`"${String(client.acked + at + 1)}"`);

    for (const [id, acked] of client.created) {
      const { status, body } = await json(`${second.url}/stream/streams/${id}`);
      if (acked) expect(status, id).toBe(200);
      if (status === 200)
        expect(shapeOf(body.stream)).toEqual({
          step: Number(id.slice(-12)),
          nodes: ['gen', 'log'],
          pipes: ['p'],
        });
      else expect(body.error.code).toBe('stream_not_found');
    }
  }
  // The streams that ran before the kill run again, with what they hold.
  for (const client of clients.filter((c) => c.runs)) {
    await eventually(
      async () => {
        const { body } = await json(`${second.url}/stream/streams/${client.main}/status`);
        return body.status.state === 'running' ? true : undefined;
      },
      15_000,
      `stream ${client.main} running again`,
    );
  }
  for (const client of clients.filter((c) => !c.runs)) {
    const { body } = await json(`${second.url}/stream/streams/${client.main}/status`);
    expect(body.status.state).toBe('created');
  }
}, 60_000);

/**
 * `headsetd streams ...`: list, read, apply (create or replace), delete, signal, status, logs and
 * export of streams (docs/api.md §Streams).
 */
import type { Command, Group, Invocation } from '../command.js';
import { answerText } from '../http.js';
import { table } from '../table.js';
import { applyCommand } from './stream-apply.js';
import { logsCommand } from './stream-logs.js';
import { streamPath } from './stream-path.js';
import { stateStyle } from './styles.js';
import { sleep } from './waiting.js';

interface StreamSummary {
  id: string;
  meta?: { name?: string; tags?: string[] };
  state: string;
}

interface NodeStatus {
  id: string;
  state: string;
  port?: number;
  metrics?: {
    itemsProcessed?: number;
    framesDropped?: number;
    errorCount?: number;
    restarts?: number;
    lastError?: string | null;
  };
}

interface StreamStatus {
  state: string;
  degraded?: boolean;
  error?: string | null;
  nodes: NodeStatus[];
}

interface StreamRead {
  id: string;
  meta?: { name?: string; description?: string; tags?: string[] };
  nodes: { id: string; executable: string; type?: string; status?: string }[];
  pipes: { id: string; source: string; destination: string; policy?: string }[];
  status?: string;
}

const ID = { min: 1, max: 1 };

const list: Command = {
  name: 'streams list',
  summary: 'List the streams: id, name, state and tags.',
  help: 'With --json: the API answer {success, streams: [{id, meta, state}]}.',
  async run({ client, out }) {
    const answer = await client.get<{ streams: StreamSummary[] }>('/stream/streams');
    if (out.json) {
      out.document(answer);
      return 0;
    }
    if (answer.streams.length === 0) {
      out.note('no streams (create one with: headsetd streams apply -f stream.yaml)');
      return 0;
    }
    for (const line of table(
      answer.streams,
      [
        { header: 'ID', value: (s) => s.id },
        { header: 'NAME', value: (s) => s.meta?.name ?? '' },
        { header: 'STATE', value: (s) => s.state, style: (s, t) => stateStyle(out, s.state, t) },
        { header: 'TAGS', value: (s) => (s.meta?.tags ?? []).join(',') },
      ],
      (t) => out.style('bold', t),
    ))
      out.line(line);
    return 0;
  },
};

const get: Command = {
  name: 'streams get',
  args: 'ID',
  summary: 'Show a stream: its meta, nodes (executable, state) and pipes.',
  help: 'With --json: the API answer {success, stream: {id, meta, nodes, pipes, status}}.',
  positionals: ID,
  async run({ client, out, positionals }) {
    const answer = await client.get<{ stream: StreamRead }>(streamPath(positionals[0] ?? ''));
    if (out.json) {
      out.document(answer);
      return 0;
    }
    const stream = answer.stream;
    out.line(`${out.style('bold', 'id')}       ${stream.id}`);
    if (stream.meta?.name !== undefined) out.line(`${out.style('bold', 'name')}     ${stream.meta.name}`);
    if (stream.meta?.tags !== undefined)
      out.line(`${out.style('bold', 'tags')}     ${stream.meta.tags.join(', ')}`);
    out.line(
      `${out.style('bold', 'state')}    ${stateStyle(out, stream.status ?? '', (stream.status ?? '').toLowerCase())}`,
    );
    out.line();
    for (const line of table(
      stream.nodes,
      [
        { header: 'NODE', value: (n) => n.id },
        { header: 'EXECUTABLE', value: (n) => n.executable },
        {
          header: 'STATE',
          value: (n) => (n.status ?? '').toLowerCase(),
          style: (n, t) => stateStyle(out, n.status ?? '', t),
        },
      ],
      (t) => out.style('bold', t),
    ))
      out.line(line);
    if (stream.pipes.length > 0) {
      out.line();
      for (const line of table(
        stream.pipes,
        [
          { header: 'PIPE', value: (p) => p.id },
          { header: 'FROM', value: (p) => p.source },
          { header: 'TO', value: (p) => p.destination },
          { header: 'POLICY', value: (p) => p.policy ?? 'drop-oldest' },
        ],
        (t) => out.style('bold', t),
      ))
        out.line(line);
    }
    return 0;
  },
};

const remove: Command = {
  name: 'streams delete',
  args: 'ID',
  summary: 'Delete a stream (a running one is stopped first). Its recordings stay.',
  help: 'With --json: the API answer {success}.',
  positionals: ID,
  async run({ client, out, positionals }) {
    const id = positionals[0] ?? '';
    const answer = await client.request('DELETE', streamPath(id));
    if (out.json) {
      out.document(answer);
      return 0;
    }
    out.line(`stream ${id} deleted`);
    return 0;
  },
};

/** States a transition passes through; the command waits them out before it prints. */
const TRANSITIONAL = new Set(['starting', 'pausing', 'stopping']);
/** How long the command waits for a transition to end, ms: then it prints the state as it is. */
const SETTLE_MS = 30_000;
const SETTLE_POLL_MS = 100;

/**
 * The state a signal leads to, for the line printed after it: the API answers a signal once it is
 * accepted, maybe before the stream's nodes run (a node's program may take seconds to be ready), so
 * the command reads the status until the transition has ended (or Ctrl-C, or SETTLE_MS) and prints
 * where it ended: `running`, or `error` with the stream's reason.
 */
async function signal(invocation: Invocation, name: string): Promise<number> {
  const { client, out, positionals } = invocation;
  const id = positionals[0] ?? '';
  const answer = await client.post(streamPath(id, '/signal'), { json: { signal: name } });
  if (out.json) {
    out.document(answer);
    return 0;
  }
  const deadline = Date.now() + SETTLE_MS;
  let status = (await client.get<{ status: StreamStatus }>(streamPath(id, '/status'))).status;
  while (TRANSITIONAL.has(status.state) && Date.now() < deadline) {
    if (!(await sleep(SETTLE_POLL_MS, invocation.signal))) break;
    status = (await client.get<{ status: StreamStatus }>(streamPath(id, '/status'))).status;
  }
  out.line(`stream ${id} ${stateStyle(out, status.state, status.state)}`);
  return 0;
}

function signalCommand(name: string, summary: string): Command {
  return {
    name: `streams ${name}`,
    args: 'ID',
    summary,
    help: `Prints the stream's state once the transition the signal began has ended (running, paused,
stopped, or error). With --json: the API answer {id, success}, at once.
A signal impossible in the stream's state fails with invalid_state (exit 1); repeating one is harmless.`,
    positionals: ID,
    run: (invocation) => signal(invocation, name),
  };
}

const status: Command = {
  name: 'streams status',
  args: 'ID',
  summary: "A stream's state and each node's state and counters.",
  help: `Columns: frames processed, dropped, errors, restarts, the last error.
With --json: the API answer {success, status: {state, degraded, error, nodes, pipes}}.`,
  positionals: ID,
  async run({ client, out, positionals }) {
    const answer = await client.get<{ status: StreamStatus }>(streamPath(positionals[0] ?? '', '/status'));
    if (out.json) {
      out.document(answer);
      return 0;
    }
    const { status: s } = answer;
    out.line(
      `state ${stateStyle(out, s.state, s.state)}${s.degraded === true ? out.style('yellow', ' (degraded)') : ''}${s.error ? `: ${s.error}` : ''}`,
    );
    out.line();
    for (const line of table(
      s.nodes,
      [
        { header: 'NODE', value: (n) => n.id },
        { header: 'STATE', value: (n) => n.state, style: (n, t) => stateStyle(out, n.state, t) },
        { header: 'FRAMES', value: (n) => String(n.metrics?.itemsProcessed ?? 0), align: 'right' },
        { header: 'DROPPED', value: (n) => String(n.metrics?.framesDropped ?? 0), align: 'right' },
        { header: 'ERRORS', value: (n) => String(n.metrics?.errorCount ?? 0), align: 'right' },
        { header: 'RESTARTS', value: (n) => String(n.metrics?.restarts ?? 0), align: 'right' },
        { header: 'PORT', value: (n) => (n.port === undefined ? '' : String(n.port)), align: 'right' },
        { header: 'LAST ERROR', value: (n) => n.metrics?.lastError ?? '' },
      ],
      (t) => out.style('bold', t),
    ))
      out.line(line);
    return 0;
  },
};

const exportCommand: Command = {
  name: 'streams export',
  args: 'ID',
  summary: "Print a stream's definition as YAML, ready for 'headsetd streams apply -f'.",
  help: 'With --json: the definition as JSON (id, meta, nodes, pipes; no status fields).',
  positionals: ID,
  async run({ client, out, positionals }) {
    const id = positionals[0] ?? '';
    if (out.json) {
      const { stream } = await client.get<{ stream: StreamRead & Record<string, unknown> }>(streamPath(id));
      const { status: _status, ...definition } = stream;
      out.document({
        ...definition,
        nodes: stream.nodes.map(({ status: _s, ...node }) => node),
      });
      return 0;
    }
    out.stdout.write(await answerText(await client.send('GET', streamPath(id, '/yaml'))));
    return 0;
  },
};

export const streamsGroup: Group = {
  name: 'streams',
  summary: 'list, show, create or update (apply), delete, signal and inspect streams',
  commands: [
    list,
    get,
    applyCommand,
    remove,
    signalCommand('start', 'Start a stream.'),
    signalCommand('stop', 'Stop a stream.'),
    signalCommand('pause', 'Pause a stream: its sources stop emitting.'),
    signalCommand('resume', 'Resume a paused stream.'),
    status,
    logsCommand,
    exportCommand,
  ],
};

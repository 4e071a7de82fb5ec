/**
 * `headsetd streams logs ID [NODE] [-f]`: the last lines of a node's log (every node's, merged in
 * time, when no node is named); `-f` follows, reading the logs again twice a second and printing
 * only the lines not seen yet.
 */
import type { Command } from '../command.js';
import type { ApiClient } from '../http.js';
import type { Output } from '../output.js';
import { streamPath } from './stream-path.js';
import { sleep } from './waiting.js';

interface LogLine {
  timestamp: number;
  stream: string;
  line: string;
}

interface NodeLine extends LogLine {
  node: string;
}

const FOLLOW_INTERVAL_MS = 500;

function same(a: LogLine, b: LogLine): boolean {
  return a.timestamp === b.timestamp && a.stream === b.stream && a.line === b.line;
}

/** The lines after the last one seen (all of them when it has left the node's 500-line window). */
function unseen(lines: readonly LogLine[], last: LogLine | undefined): LogLine[] {
  if (last === undefined) return [...lines];
  for (let i = lines.length - 1; i >= 0; i--) if (same(lines[i] as LogLine, last)) return lines.slice(i + 1);
  return [...lines];
}

async function nodeIds(client: ApiClient, id: string): Promise<string[]> {
  const { stream } = await client.get<{ stream: { nodes: { id: string }[] } }>(streamPath(id));
  return stream.nodes.map((n) => n.id);
}

function print(out: Output, line: NodeLine, withNode: boolean, follow: boolean): void {
  if (out.json) {
    if (follow) out.record(line);
    return;
  }
  const time = new Date(line.timestamp).toISOString();
  const node = withNode ? `${out.style('cyan', line.node)} ` : '';
  const tag = line.stream === 'stderr' ? '' : out.style('dim', `[${line.stream}] `);
  out.line(`${out.style('dim', time)} ${node}${tag}${line.line}`);
}

export const logsCommand: Command = {
  name: 'streams logs',
  args: 'ID [NODE] [-f]',
  summary: "A node's log lines (every node's when none is named), oldest first.",
  help: `Options:
  -f, --follow   keep printing new lines until Ctrl-C
Each line: its time, the node (when several), [event] for the service's own lines, the text.
With --json: {logs: [{node, timestamp, stream, line}]}; with --follow, one such line per
line of log (NDJSON).`,
  options: { follow: { type: 'boolean', short: 'f' } },
  positionals: { min: 1, max: 2 },
  async run({ client, out, positionals, values, signal }) {
    const id = positionals[0] ?? '';
    const named = positionals[1];
    const nodes = named === undefined ? await nodeIds(client, id) : [named];
    const follow = values.follow === true;
    const last = new Map<string, LogLine>();
    const collected: NodeLine[] = [];
    for (;;) {
      const fresh: NodeLine[] = [];
      for (const node of nodes) {
        let logs: LogLine[];
        try {
          ({ logs } = await client.get<{ logs: LogLine[] }>(
            streamPath(id, `/nodes/${encodeURIComponent(node)}/logs`),
            { signal },
          ));
        } catch (error) {
          // Ctrl-C is how a follow ends.
          if (follow && signal.aborted) return 0;
          throw error;
        }
        fresh.push(...unseen(logs, last.get(node)).map((line) => ({ node, ...line })));
        const end = logs.at(-1);
        if (end !== undefined) last.set(node, end);
      }
      fresh.sort((a, b) => a.timestamp - b.timestamp);
      for (const line of fresh) print(out, line, nodes.length > 1, follow);
      collected.push(...fresh);
      if (!follow) break;
      if (!(await sleep(FOLLOW_INTERVAL_MS, signal))) return 0;
    }
    if (out.json) out.document({ logs: collected });
    return 0;
  },
};

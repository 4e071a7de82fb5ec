/**
 * `headsetd events`: follows the live events of the service (WebSocket GET /system/events), one
 * line per event, until Ctrl-C or `--count` events.
 */
import type { Command, Group } from '../command.js';
import { listOption, stringOption } from '../command.js';
import { UsageError } from '../failures.js';
import type { Output } from '../output.js';
import { openSocket } from '../socket.js';

interface Event {
  type: string;
  timestamp?: number;
  eventType?: string;
  level?: string;
  message?: string;
  data?: unknown;
  job?: { id: string; operation: string; status: string };
}

const LEVEL_STYLES = { info: 'cyan', warning: 'yellow', error: 'red' } as const;

function describe(event: Event): string {
  switch (event.type) {
    case 'system':
      return `${event.eventType ?? ''}: ${event.message ?? ''}`;
    case 'impedance':
      return Object.entries((event.data ?? {}) as Record<string, number>)
        .map(([name, kohms]) => `${name} ${String(kohms)} kΩ`)
        .join(', ');
    case 'quality': {
      const data = (event.data ?? {}) as { overall?: number };
      return `overall ${String(data.overall ?? '-')}`;
    }
    case 'job':
      return event.job === undefined ? '' : `${event.job.operation} ${event.job.id} ${event.job.status}`;
    case 'marker': {
      const data = (event.data ?? {}) as { text?: string; onset?: number; file?: string };
      return `"${data.text ?? ''}" at ${String(data.onset ?? '-')} s of ${data.file ?? 'the recording'}`;
    }
    default:
      return JSON.stringify(event);
  }
}

function line(out: Output, event: Event): string {
  const time = out.style('dim', new Date(event.timestamp ?? Date.now()).toISOString());
  const level = event.level as keyof typeof LEVEL_STYLES | undefined;
  const type =
    level !== undefined && level in LEVEL_STYLES
      ? out.style(LEVEL_STYLES[level], event.type)
      : out.style('bold', event.type);
  return `${time} ${type.padEnd(out.color ? 0 : 9)} ${describe(event)}`;
}

const events: Command = {
  name: 'events',
  args: '[--type LIST] [--count N]',
  summary: 'Follow the live events: system events, impedance readings, signal quality, jobs.',
  help: `Options:
  --type LIST   only these types (system, impedance, quality, job, marker), comma-separated or repeated
  --count N     stop after N events (default: until Ctrl-C)
One line per event: its time, type and what it says. With --json: each event as the service
sends it, one per line (NDJSON).`,
  options: { type: { type: 'string', multiple: true }, count: { type: 'string' } },
  async run({ client, out, values, signal }) {
    const types = listOption(values, 'type');
    const countText = stringOption(values, 'count');
    const count = countText === undefined ? Number.POSITIVE_INFINITY : Number(countText);
    if (countText !== undefined && (!Number.isInteger(count) || count < 1))
      throw new UsageError(`--count: ${countText} is not a positive integer.`);
    const socket = await openSocket(client, '/system/events', signal);
    out.note(`following the events of ${client.connection.url} (Ctrl-C to stop)`);
    let seen = 0;
    try {
      for await (const message of socket.messages()) {
        const event = message as Event;
        if (types !== undefined && !types.includes(event.type)) continue;
        if (out.json) out.record(event);
        else out.line(line(out, event));
        if (++seen >= count) break;
      }
    } catch (error) {
      if (!signal.aborted) throw error;
    } finally {
      socket.close();
    }
    return 0;
  },
};

export const eventsGroup: Group = {
  name: 'events',
  summary: 'follow the live events (NDJSON with --json)',
  commands: [events],
};

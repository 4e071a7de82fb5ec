/**
 * `headsetd motors get|move|reset`: the motors that press each electrode onto the scalp
 * (docs/system-paths.md §Motors). Moves are followed until every motor has stopped, with a
 * progress bar per motor on a terminal.
 */
import type { Command, Group } from '../command.js';
import { listOption, stringOption } from '../command.js';
import { UsageError } from '../failures.js';
import type { ApiClient } from '../http.js';
import { LiveView, progressBar } from '../live.js';
import type { Output } from '../output.js';
import { table, fixed } from '../table.js';
import { sleep } from './waiting.js';

export const STATE_NAMES: Record<number, string> = {
  0: 'idle',
  1: 'moving',
  2: 'braked',
  3: 'stalled',
  4: 'fault',
};
const MOVING = 1;
const MAX_POSITION = 100;
const POLL_MS = 200;

type Readings = { positions: Record<string, number>; states: Record<string, number> };

async function read(
  client: ApiClient,
  electrodes: string[] | undefined,
  signal?: AbortSignal,
): Promise<Readings> {
  const query = { electrode: electrodes };
  const [positions, states] = await Promise.all([
    client.get<Record<string, number>>('/system/motors/position', { query, signal }),
    client.get<Record<string, number>>('/system/motors/state', { query, signal }),
  ]);
  return { positions, states };
}

function stateText(out: Output, state: number | undefined): string {
  const name = STATE_NAMES[state ?? -1] ?? String(state);
  return state === 3 ? out.style('yellow', name) : state === 4 ? out.style('red', name) : name;
}

function render(out: Output, readings: Readings, progress?: (name: string) => number): string[] {
  return table(
    Object.keys(readings.positions),
    [
      { header: 'ELECTRODE', value: (name) => name },
      { header: 'POSITION', value: (name) => fixed(readings.positions[name], 1), align: 'right' },
      { header: 'MM', value: (name) => fixed((readings.positions[name] ?? 0) / 10, 2), align: 'right' },
      { header: 'STATE', value: (name) => stateText(out, readings.states[name]) },
      ...(progress === undefined
        ? []
        : [{ header: '', value: (name: string) => progressBar(progress(name)) }]),
    ],
    (t) => out.style('bold', t),
  );
}

function print(out: Output, readings: Readings): number {
  if (out.json) out.document({ success: true, ...readings });
  else for (const line of render(out, readings)) out.line(line);
  return 0;
}

/**
 * Reads the motors until none of `electrodes` moves, redrawing their bars on a terminal; Ctrl-C
 * stops the motors where they are.
 */
async function follow(
  client: ApiClient,
  out: Output,
  electrodes: string[] | undefined,
  targets: (start: Readings) => Record<string, number>,
  start: Readings,
  signal: AbortSignal,
): Promise<Readings> {
  const target = targets(start);
  const view = new LiveView(out);
  const fraction = (readings: Readings) => (name: string) => {
    if (readings.states[name] !== MOVING) return 1;
    const from = start.positions[name] ?? 0;
    const to = target[name] ?? from;
    return to === from ? 1 : Math.abs((readings.positions[name] ?? from) - from) / Math.abs(to - from);
  };
  for (;;) {
    const readings = await read(client, electrodes);
    const moving = Object.values(readings.states).some((s) => s === MOVING);
    if (out.tty && !out.json) view.draw(render(out, readings, fraction(readings)));
    if (!moving) return readings;
    if (!(await sleep(POLL_MS, signal))) {
      const names = Object.keys(readings.states);
      await client.post('/system/motors/position', {
        json: { configuration: names.map((electrode) => ({ electrode, movement: 'STOP' })) },
      });
      throw new Error('interrupted');
    }
  }
}

const get: Command = {
  name: 'motors get',
  args: '[--electrodes LIST]',
  summary: "Each motor's position (steps of 0.1 mm, 0 retracted … 100 extended) and state.",
  help: `Options:
  --electrodes LIST   electrodes, comma-separated or repeated (default: all 21)
States: idle, moving, braked, stalled (pressing as hard as is safe), fault.
With --json: {success, positions: {NAME: steps}, states: {NAME: code}}.`,
  options: { electrodes: { type: 'string', multiple: true } },
  async run({ client, out, values }) {
    return print(out, await read(client, listOption(values, 'electrodes')));
  },
};

const MOVEMENTS = ['release', 'retract', 'stop', 'brake'] as const;

const move: Command = {
  name: 'motors move',
  args: 'ELECTRODES (--release N | --retract N | --stop | --brake) [--no-wait]',
  summary: 'Move motors: toward the scalp (release) or away (retract) by N steps, or stop or brake them.',
  help: `ELECTRODES is a comma-separated list (O1,O2). Options:
  --release N    move toward the scalp by N steps (0 < N <= 100; a step is 0.1 mm)
  --retract N    move away from the scalp by N steps
  --stop         stop; --brake stops and holds
  --no-wait      answer at once instead of following the move to its end
Followed to the end with a progress bar per motor on a terminal; Ctrl-C stops the motors.
Prints the final positions and states. With --json: {success, positions, states}.`,
  options: {
    release: { type: 'string' },
    retract: { type: 'string' },
    stop: { type: 'boolean' },
    brake: { type: 'boolean' },
    'no-wait': { type: 'boolean' },
  },
  positionals: { min: 1, max: 1 },
  async run({ client, out, values, positionals, signal }) {
    const electrodes = listOption({ e: positionals[0] }, 'e') ?? [];
    const chosen = MOVEMENTS.filter((m) => values[m] !== undefined);
    if (chosen.length !== 1)
      throw new UsageError('motors move needs exactly one of --release N, --retract N, --stop, --brake.');
    const movement = chosen[0] as (typeof MOVEMENTS)[number];
    const displacementText = stringOption(values, movement);
    const displacement = displacementText === undefined ? undefined : Number(displacementText);
    const configuration = electrodes.map((electrode) => ({
      electrode,
      movement: movement.toUpperCase(),
      ...(displacement === undefined ? {} : { displacement }),
    }));
    const start = await read(client, electrodes);
    await client.post('/system/motors/position', { json: { configuration } });
    if (values['no-wait'] === true) return print(out, await read(client, electrodes));
    const sign = movement === 'release' ? 1 : movement === 'retract' ? -1 : 0;
    const final = await follow(
      client,
      out,
      electrodes,
      (s) =>
        Object.fromEntries(
          Object.entries(s.positions).map(([name, p]) => [
            name,
            Math.min(MAX_POSITION, Math.max(0, p + sign * (displacement ?? 0))),
          ]),
        ),
      start,
      signal,
    );
    if (out.tty && !out.json) return 0;
    return print(out, final);
  },
};

const reset: Command = {
  name: 'motors reset',
  args: '[--to min|max] [--no-wait]',
  summary: 'Move every motor to an end: fully retracted (min, the default) or fully extended (max).',
  help: `Options:
  --to min|max   the end to go to (default min, away from the scalp)
  --no-wait      answer at once instead of following the moves to their end
With --json: {success, positions, states}.`,
  options: { to: { type: 'string' }, 'no-wait': { type: 'boolean' } },
  async run({ client, out, values, signal }) {
    const to = (stringOption(values, 'to') ?? 'min').toUpperCase();
    if (to !== 'MIN' && to !== 'MAX')
      throw new UsageError(`--to: ${JSON.stringify(to.toLowerCase())} is neither min nor max.`);
    const start = await read(client, undefined);
    await client.post('/system/motors/position/reset', { json: { position: to } });
    if (values['no-wait'] === true) return print(out, await read(client, undefined));
    const end = to === 'MIN' ? 0 : MAX_POSITION;
    const final = await follow(
      client,
      out,
      undefined,
      (s) => Object.fromEntries(Object.keys(s.positions).map((name) => [name, end])),
      start,
      signal,
    );
    if (out.tty && !out.json) return 0;
    return print(out, final);
  },
};

export const motorsGroup: Group = {
  name: 'motors',
  summary: 'read the electrode motors, move them, reset them to an end',
  commands: [get, move, reset],
};

/**
 * `headsetd impedance [--watch]`: each electrode's impedance (GET /system/sensors/impedance), in
 * kΩ, with its level (excellent … very poor, by the thresholds of the service's configuration)
 * in that level's colour; `--watch` measures again and redraws until Ctrl-C.
 */
import {
  DEFAULT_THRESHOLDS,
  type ImpedanceLevel,
  impedanceLevel,
  type LevelThresholds,
  levelRange,
  IMPEDANCE_LEVELS,
} from '../../guides/headmap/impedance-levels.js';
import type { Command, Group } from '../command.js';
import { listOption, stringOption } from '../command.js';
import { UsageError } from '../failures.js';
import type { ApiClient } from '../http.js';
import { LiveView } from '../live.js';
import type { Output } from '../output.js';
import { table } from '../table.js';
import { levelStyle } from './styles.js';
import { sleep } from './waiting.js';

export interface Reading {
  ohms: number;
  kiloohms: number;
  level: ImpedanceLevel;
}

export async function thresholdsOf(client: ApiClient): Promise<LevelThresholds> {
  const { config } = await client.get<{ config: { impedance?: { thresholds?: LevelThresholds } } }>(
    '/system/config',
  );
  return config.impedance?.thresholds ?? DEFAULT_THRESHOLDS;
}

async function measure(
  client: ApiClient,
  channels: string[] | undefined,
  thresholds: LevelThresholds,
  signal: AbortSignal,
): Promise<Record<string, Reading>> {
  const ohms = await client.get<Record<string, number>>('/system/sensors/impedance', {
    query: { channels },
    signal,
  });
  return Object.fromEntries(
    Object.entries(ohms).map(([name, value]) => {
      const kiloohms = Math.round(value / 10) / 100;
      return [name, { ohms: value, kiloohms, level: impedanceLevel(kiloohms, thresholds) }];
    }),
  );
}

const LEVEL_NAMES: Record<ImpedanceLevel, string> = {
  excellent: 'excellent',
  good: 'good',
  acceptable: 'acceptable',
  poor: 'poor',
  very_poor: 'very poor',
};

function render(out: Output, readings: Record<string, Reading>, thresholds: LevelThresholds): string[] {
  const rows = Object.entries(readings);
  return [
    ...table(
      rows,
      [
        { header: 'ELECTRODE', value: ([name]) => name },
        { header: 'kΩ', value: ([, r]) => r.kiloohms.toFixed(2), align: 'right' },
        {
          header: 'LEVEL',
          value: ([, r]) => LEVEL_NAMES[r.level],
          style: ([, r], text) => levelStyle(out, r.level, text),
        },
      ],
      (t) => out.style('bold', t),
    ),
    out.style(
      'dim',
      IMPEDANCE_LEVELS.map((level) => `${LEVEL_NAMES[level]} ${levelRange(level, thresholds)}`).join(' · '),
    ),
  ];
}

const impedance: Command = {
  name: 'impedance',
  args: '[--channels LIST] [--watch] [--interval MS] [--count N]',
  summary: "Measure the electrodes' impedance: a table in kΩ, coloured by level.",
  help: `Options:
  --channels LIST   electrodes, comma-separated or repeated (default: all 21)
  --watch           measure again and again, redrawing the table, until Ctrl-C
  --interval MS     time between measurements with --watch (default 1000)
  --count N         with --watch, stop after N measurements
Each measurement takes about 35 ms + 15 ms per electrode; it is refused (device_busy, exit 1)
while EEG is acquired. Levels follow the thresholds of GET /system/config (impedance.thresholds).
With --json: {timestamp, electrodes: {NAME: {ohms, kiloohms, level}}}; with --watch one per line.`,
  options: {
    channels: { type: 'string', multiple: true },
    watch: { type: 'boolean' },
    interval: { type: 'string' },
    count: { type: 'string' },
  },
  async run({ client, out, values, signal }) {
    const channels = listOption(values, 'channels');
    const watch = values.watch === true;
    const intervalText = stringOption(values, 'interval');
    const interval = intervalText === undefined ? 1000 : Number(intervalText);
    if (!Number.isFinite(interval) || interval < 0)
      throw new UsageError(`--interval: ${String(intervalText)} is not a number of ms.`);
    const countText = stringOption(values, 'count');
    const count = countText === undefined ? (watch ? Number.POSITIVE_INFINITY : 1) : Number(countText);
    if (countText !== undefined && (!Number.isInteger(count) || count < 1))
      throw new UsageError(`--count: ${countText} is not a positive integer.`);
    const thresholds = await thresholdsOf(client);
    const view = new LiveView(out);
    for (let done = 0; done < count; ) {
      let readings: Record<string, Reading>;
      try {
        readings = await measure(client, channels, thresholds, signal);
      } catch (error) {
        if (watch && signal.aborted) return 0;
        throw error;
      }
      const timestamp = Date.now();
      if (out.json) {
        const document = { timestamp, electrodes: readings };
        if (watch) out.record(document);
        else out.document(document);
      } else if (watch)
        view.draw([
          out.style('dim', new Date(timestamp).toISOString()),
          ...render(out, readings, thresholds),
        ]);
      else for (const line of render(out, readings, thresholds)) out.line(line);
      if (++done < count && !(await sleep(interval, signal))) return 0;
    }
    return 0;
  },
};

export const impedanceGroup: Group = {
  name: 'impedance',
  summary: 'measure electrode impedance (a table coloured by level; --watch refreshes it)',
  commands: [impedance],
};

/**
 * Impedance schedules (docs/systems.md §Schedules): every `interval`
 * the impedance of all 21 electrodes is checked; the first check is the baseline; a later check
 * that finds a channel risen by more than `thresholdIncrease` % over its baseline raises a system
 * event `impedance_increase` (once per channel until it falls back), and with action `optimize`
 * presses that channel back under its baseline (gentle profile). Checks are skipped while EEG is
 * acquired or the electrodes are held by another operation. Readings go to the history under the
 * schedule's id. A schedule ends after `duration`, or when deleted.
 */
import { randomUUID } from 'node:crypto';
import { ELECTRODES, type Electrode, MIXED_CASE } from '../core/electrodes.js';
import { requirePart, requireParts } from '../device/capabilities.js';
import type { ElectrodeMap } from '../device/headset.js';
import { HeadsetdError } from '../core/errors.js';
import type { GuidesContext } from './context.js';
import { ohmsToKiloohms } from './impedance-sessions.js';
import { optimizeElectrodes } from './optimizer.js';
import { STRATEGIES } from './strategies.js';

export const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000 } as const;
export type ScheduleUnit = keyof typeof UNIT_MS;
/** Limits: at least a second between checks, at most 7 days in all, at most 8 schedules at once. */
export const MIN_INTERVAL_MS = 1000;
export const MAX_DURATION_MS = 7 * 24 * 3_600_000;
export const MAX_SCHEDULES = 8;

export interface ScheduleRequest {
  readonly interval: number;
  readonly unit: ScheduleUnit;
  /** In `unit`; omitted: until deleted (up to the 7-day limit). */
  readonly duration?: number;
  readonly action: 'check' | 'optimize';
  /** %. */
  readonly thresholdIncrease: number;
}

export interface ScheduleView {
  scheduleId: string;
  interval: number;
  unit: ScheduleUnit;
  duration: number | null;
  action: 'check' | 'optimize';
  thresholdIncrease: number;
  checks: number;
  skipped: number;
  endsAt: string;
  baseline: Record<string, number> | null;
}

interface Schedule {
  readonly id: string;
  readonly request: ScheduleRequest;
  readonly endsAt: number;
  timer: NodeJS.Timeout | undefined;
  baseline: ElectrodeMap<number> | undefined;
  /** Channels already reported as risen (re-armed when they fall back). */
  readonly alerted: Set<Electrode>;
  checks: number;
  skipped: number;
  running: boolean;
}

export class ImpedanceSchedules {
  private readonly schedules = new Map<string, Schedule>();

  constructor(private readonly context: GuidesContext) {}

  create(request: ScheduleRequest): ScheduleView {
    // A schedule measures impedance, and with `optimize` moves motors: refused up front without them.
    requireParts(
      this.context.device,
      'impedance',
      ...(request.action === 'optimize' ? (['motors'] as const) : []),
    );
    const intervalMs = request.interval * UNIT_MS[request.unit];
    if (intervalMs < MIN_INTERVAL_MS) {
      throw new HeadsetdError(
        'validation_failed',
        `The interval must be at least ${MIN_INTERVAL_MS / 1000} s.`,
        { path: '/interval' },
      );
    }
    const durationMs =
      request.duration === undefined ? MAX_DURATION_MS : request.duration * UNIT_MS[request.unit];
    if (durationMs > MAX_DURATION_MS || durationMs < intervalMs) {
      throw new HeadsetdError(
        'validation_failed',
        'The duration must cover at least one interval and at most 7 days.',
        { path: '/duration' },
      );
    }
    if (this.schedules.size >= MAX_SCHEDULES) {
      throw new HeadsetdError(
        'validation_failed',
        `At most ${MAX_SCHEDULES} schedules run at once; delete one first.`,
        { path: '' },
      );
    }
    const schedule: Schedule = {
      id: randomUUID(),
      request,
      endsAt: Date.now() + durationMs,
      timer: undefined,
      baseline: undefined,
      alerted: new Set(),
      checks: 0,
      skipped: 0,
      running: false,
    };
    this.schedules.set(schedule.id, schedule);
    const tick = (): void => {
      if (Date.now() >= schedule.endsAt) {
        this.remove(schedule.id);
        return;
      }
      void this.check(schedule).finally(() => {
        // Unref'd: a schedule alone never keeps the process alive.
        if (this.schedules.has(schedule.id)) schedule.timer = setTimeout(tick, intervalMs).unref();
      });
    };
    // The first check (the baseline) runs at once.
    schedule.timer = setTimeout(tick, 0).unref();
    return this.view(schedule);
  }

  list(): ScheduleView[] {
    return [...this.schedules.values()].map((s) => this.view(s));
  }

  delete(id: string): ScheduleView {
    const schedule = this.schedules.get(id);
    if (schedule === undefined) {
      throw new HeadsetdError('not_found', `No impedance schedule has the id ${JSON.stringify(id)}.`, {
        path: '/params/id',
      });
    }
    this.remove(id);
    return this.view(schedule);
  }

  close(): void {
    for (const id of [...this.schedules.keys()]) this.remove(id);
  }

  private remove(id: string): void {
    const schedule = this.schedules.get(id);
    if (schedule?.timer !== undefined) clearTimeout(schedule.timer);
    this.schedules.delete(id);
  }

  private view(s: Schedule): ScheduleView {
    return {
      scheduleId: s.id,
      interval: s.request.interval,
      unit: s.request.unit,
      duration: s.request.duration ?? null,
      action: s.request.action,
      thresholdIncrease: s.request.thresholdIncrease,
      checks: s.checks,
      skipped: s.skipped,
      endsAt: new Date(s.endsAt).toISOString(),
      baseline:
        s.baseline === undefined
          ? null
          : Object.fromEntries(Object.entries(s.baseline).map(([e, v]) => [MIXED_CASE[e as Electrode], v])),
    };
  }

  private async check(schedule: Schedule): Promise<void> {
    const { device, store, hub, locks } = this.context;
    if (device.eeg.state().streaming || ELECTRODES.some((e) => locks.isHeld(e))) {
      schedule.skipped++;
      return;
    }
    let values: ElectrodeMap<number>;
    try {
      values = ohmsToKiloohms(
        await requirePart(device, 'impedance').measure(undefined, {
          holder: `impedance schedule ${schedule.id}; DELETE /electrodes/impedance/schedule/${schedule.id} ends it`,
        }),
      );
    } catch {
      schedule.skipped++;
      return;
    }
    if (!this.schedules.has(schedule.id)) return;
    schedule.checks++;
    store.record(schedule.id, { timestamp: Date.now(), values });
    if (schedule.baseline === undefined) {
      schedule.baseline = values;
      return;
    }
    const risen: Electrode[] = [];
    for (const e of ELECTRODES) {
      const base = schedule.baseline[e];
      const now = values[e];
      if (base === undefined || now === undefined) continue;
      const increase = ((now - base) / base) * 100;
      if (increase > schedule.request.thresholdIncrease) {
        if (!schedule.alerted.has(e)) {
          schedule.alerted.add(e);
          risen.push(e);
          hub.system(
            'impedance_increase',
            'warning',
            `${MIXED_CASE[e]} impedance rose ${increase.toFixed(0)} % (from ${base} to ${now} kΩ), more than the schedule's ${schedule.request.thresholdIncrease} %.`,
          );
        }
      } else {
        schedule.alerted.delete(e);
      }
    }
    if (schedule.request.action === 'optimize' && risen.length > 0) {
      const baseline = schedule.baseline;
      const target = Math.max(
        ...risen.map((e) => baseline[e] ?? 0),
        this.context.config().impedance.thresholds.good,
      );
      await locks
        .with(risen, 'scheduled optimization', () =>
          optimizeElectrodes(device, risen, {
            targetKohms: target,
            maxAttempts: 10,
            profile: STRATEGIES.gentle,
          }),
        )
        .catch(() => undefined);
    }
  }
}

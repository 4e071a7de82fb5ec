/**
 * Impedance history and snapshots in the store (tables of migrations.ts). Values are kept
 * in kΩ keyed by upper-case electrode names; readings older than {@link HISTORY_RETENTION_MS}
 * are pruned as new ones arrive.
 */
import { randomUUID } from 'node:crypto';
import type { Db } from './database.js';
import { storeWrite } from './storage-errors.js';
import { ELECTRODES, type Electrode, type ElectrodeMap } from '../../core/electrodes.js';
import { ensureTables } from './migrations.js';

/** Seven days: the longest history range served (timeRange=7d). */
export const HISTORY_RETENTION_MS = 7 * 24 * 3600 * 1000;
/** Readings answered by one history query at most (the newest are kept). */
export const HISTORY_MAX_POINTS = 10_000;

export interface ImpedanceReading {
  /** ms since the epoch. */
  readonly timestamp: number;
  /** kΩ. */
  readonly values: ElectrodeMap<number>;
}

export interface ImpedanceSnapshot {
  readonly id: string;
  readonly name: string;
  readonly notes: string;
  /** ISO 8601. */
  readonly timestamp: string;
  /** kΩ. */
  readonly values: ElectrodeMap<number>;
}

function parseValues(text: string): ElectrodeMap<number> {
  const raw = JSON.parse(text) as Record<string, unknown>;
  const values: ElectrodeMap<number> = {};
  for (const electrode of ELECTRODES) {
    const value = raw[electrode];
    if (typeof value === 'number') values[electrode] = value;
  }
  return values;
}

export class ImpedanceStore {
  private readonly insertReading;
  private readonly prune;
  private readonly insertSnapshot;
  private readonly selectSnapshots;
  private inserts = 0;

  constructor(private readonly db: Db) {
    ensureTables(db);
    this.insertReading = db.prepare(
      'INSERT INTO impedance_readings (session_id, timestamp, kohms) VALUES (?, ?, ?)',
    );
    this.prune = db.prepare('DELETE FROM impedance_readings WHERE timestamp < ?');
    this.insertSnapshot = db.prepare(
      'INSERT INTO impedance_snapshots (id, name, notes, timestamp, kohms) VALUES (?, ?, ?, ?, ?)',
    );
    this.selectSnapshots = db.prepare(
      'SELECT id, name, notes, timestamp, kohms FROM impedance_snapshots ORDER BY timestamp',
    );
  }

  /** Records one measurement of a session (or of a schedule: its id). */
  record(sessionId: string | null, reading: ImpedanceReading): void {
    storeWrite(this.db, 'the impedance reading', () =>
      this.insertReading.run(sessionId, reading.timestamp, JSON.stringify(reading.values)),
    );
    // Pruning every 100 inserts keeps the table bounded without a timer.
    if (++this.inserts % 100 === 1) {
      storeWrite(this.db, 'the pruning of old impedance readings', () =>
        this.prune.run(Date.now() - HISTORY_RETENTION_MS),
      );
    }
  }

  /** Readings since `since` (ms), oldest first, of one session or all, restricted to `electrodes`. */
  history(since: number, sessionId?: string, electrodes?: readonly Electrode[]): ImpedanceReading[] {
    const rows = (
      sessionId === undefined
        ? this.db
            .prepare(
              'SELECT timestamp, kohms FROM impedance_readings WHERE timestamp >= ? ORDER BY timestamp DESC, id DESC LIMIT ?',
            )
            .all(since, HISTORY_MAX_POINTS)
        : this.db
            .prepare(
              'SELECT timestamp, kohms FROM impedance_readings WHERE timestamp >= ? AND session_id = ? ORDER BY timestamp DESC, id DESC LIMIT ?',
            )
            .all(since, sessionId, HISTORY_MAX_POINTS)
    ) as { timestamp: number; kohms: string }[];
    return rows.reverse().map((row) => {
      const all = parseValues(row.kohms);
      if (electrodes === undefined) return { timestamp: row.timestamp, values: all };
      const values: ElectrodeMap<number> = {};
      for (const e of electrodes) if (all[e] !== undefined) values[e] = all[e];
      return { timestamp: row.timestamp, values };
    });
  }

  addSnapshot(name: string, notes: string, reading: ImpedanceReading): ImpedanceSnapshot {
    const snapshot: ImpedanceSnapshot = {
      id: randomUUID(),
      name,
      notes,
      timestamp: new Date(reading.timestamp).toISOString(),
      values: reading.values,
    };
    storeWrite(this.db, 'the impedance snapshot', () =>
      this.insertSnapshot.run(snapshot.id, name, notes, snapshot.timestamp, JSON.stringify(reading.values)),
    );
    return snapshot;
  }

  snapshots(): ImpedanceSnapshot[] {
    return (
      this.selectSnapshots.all() as {
        id: string;
        name: string;
        notes: string;
        timestamp: string;
        kohms: string;
      }[]
    ).map((row) => ({
      id: row.id,
      name: row.name,
      notes: row.notes,
      timestamp: row.timestamp,
      values: parseValues(row.kohms),
    }));
  }
}

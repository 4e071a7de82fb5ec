/**
 * Stream definitions and each stream's desired run state, in the embedded database. Every write is
 * one transaction, so a definition and its desired state never disagree after a crash.
 */
import type { Db } from '../store/database.js';
import type { StreamDefinition } from './model.js';

/** `created`: never started, so a restart shows it as created rather than stopped. */
export type DesiredState = 'created' | 'running' | 'paused' | 'stopped';

export interface StoredStream {
  definition: StreamDefinition;
  desired: DesiredState;
}

interface Row {
  id: string;
  definition: string;
  desired: DesiredState;
}

export class StreamStore {
  readonly #db: Db;
  readonly #insert;
  readonly #update;
  readonly #setDesired;
  readonly #remove;
  readonly #all;

  constructor(db: Db) {
    this.#db = db;
    this.#insert = db.prepare(
      'INSERT INTO streams (id, definition, desired, created, updated) VALUES (@id, @definition, @desired, @created, @updated)',
    );
    this.#update = db.prepare(
      'UPDATE streams SET definition = @definition, updated = @updated WHERE id = @id',
    );
    this.#setDesired = db.prepare('UPDATE streams SET desired = ? WHERE id = ?');
    this.#remove = db.prepare('DELETE FROM streams WHERE id = ?');
    // Insertion order (rowid), as the list answered before a restart: `created` has only
    // millisecond resolution, and ties broken by id reordered streams created together.
    this.#all = db.prepare('SELECT id, definition, desired FROM streams ORDER BY rowid');
  }

  insert(definition: StreamDefinition, desired: DesiredState = 'created'): void {
    this.#insert.run({
      id: definition.id,
      definition: JSON.stringify(definition),
      desired,
      created: definition.meta.created,
      updated: definition.meta.updated,
    });
  }

  replace(definition: StreamDefinition): void {
    this.#update.run({
      id: definition.id,
      definition: JSON.stringify(definition),
      updated: definition.meta.updated,
    });
  }

  setDesired(id: string, desired: DesiredState): void {
    this.#setDesired.run(desired, id);
  }

  remove(id: string): void {
    this.#remove.run(id);
  }

  all(): StoredStream[] {
    return (this.#all.all() as Row[]).map((row) => ({
      definition: JSON.parse(row.definition) as StreamDefinition,
      desired: row.desired,
    }));
  }

  /** Runs `work` in one transaction (all of it or none of it). */
  transaction<T>(work: () => T): T {
    return this.#db.transaction(work)();
  }
}

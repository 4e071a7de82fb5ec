/**
 * Stream definitions and each stream's desired run state, in the embedded database. Every write is
 * one transaction, so a definition and its desired state never disagree after a crash. A write the
 * storage refuses (a full disk) throws `storage_full` or `storage_error` having changed nothing, so
 * callers write here first and change their own state only once it succeeded.
 */
import type { Db } from '../platform/store/database.js';
import { storeWrite } from '../platform/store/storage-errors.js';
import type { StreamDefinition } from '../core/stream-model.js';

/** `created`: never started, so a restart shows it as created rather than stopped. */
export type DesiredState = 'created' | 'running' | 'paused' | 'stopped';

export interface StoredStream {
  definition: StreamDefinition;
  desired: DesiredState;
  /** 1 when created, one more per edit stored: the stream's ETag. */
  revision: number;
}

interface Row {
  id: string;
  definition: string;
  desired: DesiredState;
  revision: number;
}

export class StreamStore {
  private readonly db: Db;
  private readonly insertStatement;
  private readonly updateStatement;
  private readonly setDesiredStatement;
  private readonly removeStatement;
  private readonly allStatement;

  constructor(db: Db) {
    this.db = db;
    this.insertStatement = db.prepare(
      'INSERT INTO streams (id, definition, desired, created, updated) VALUES (@id, @definition, @desired, @created, @updated)',
    );
    this.updateStatement = db.prepare(
      'UPDATE streams SET definition = @definition, updated = @updated, revision = @revision WHERE id = @id',
    );
    this.setDesiredStatement = db.prepare('UPDATE streams SET desired = ? WHERE id = ?');
    this.removeStatement = db.prepare('DELETE FROM streams WHERE id = ?');
    // Insertion order (rowid), as the list answered before a restart: `created` has only
    // millisecond resolution, and ties broken by id reordered streams created together.
    this.allStatement = db.prepare('SELECT id, definition, desired, revision FROM streams ORDER BY rowid');
  }

  insert(definition: StreamDefinition, desired: DesiredState = 'created'): void {
    storeWrite(this.db, 'the new stream', () =>
      this.insertStatement.run({
        id: definition.id,
        definition: JSON.stringify(definition),
        desired,
        created: definition.meta.created,
        updated: definition.meta.updated,
      }),
    );
  }

  /** Stores `definition` as the stream's revision `revision` (a rollback stores the previous one again). */
  replace(definition: StreamDefinition, revision: number): void {
    storeWrite(this.db, "the stream's new definition", () =>
      this.updateStatement.run({
        id: definition.id,
        definition: JSON.stringify(definition),
        updated: definition.meta.updated,
        revision,
      }),
    );
  }

  setDesired(id: string, desired: DesiredState): void {
    storeWrite(this.db, `the stream's desired state (${desired})`, () =>
      this.setDesiredStatement.run(desired, id),
    );
  }

  remove(id: string): void {
    storeWrite(this.db, "the stream's removal", () => this.removeStatement.run(id));
  }

  all(): StoredStream[] {
    return (this.allStatement.all() as Row[]).map((row) => ({
      definition: JSON.parse(row.definition) as StreamDefinition,
      desired: row.desired,
      revision: row.revision,
    }));
  }

  /** Runs `work` in one transaction (all of it or none of it). */
  transaction<T>(work: () => T): T {
    return this.db.transaction(work)();
  }
}

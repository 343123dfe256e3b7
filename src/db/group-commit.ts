/**
 * Group commit. With synchronous=FULL every COMMIT waits for an fsync, and SQLite has one writer:
 * one transaction per write caps writes at the disk's fsync rate. A group commit runs the units
 * that arrived meanwhile in one IMMEDIATE transaction, each inside its own SAVEPOINT: a unit that
 * throws (a business rule refusing an invoice) is rolled back alone, the others commit together,
 * and no caller hears "done" before the COMMIT that made its write durable. Units see the writes
 * of earlier units of the group, so two requests for one order_id in the same group still yield
 * one invoice. Users: invoice creation, the webhook dispatcher's attempt results.
 *
 * On PostgreSQL each unit is simply its own transaction (writeTx): the server commits concurrent
 * transactions of many connections together, and there is no single writer to queue behind.
 */
import { CompiledQuery } from 'kysely';
import { engineOf, isDatabaseUnavailable, writeTx, type Db, type Tx, type WriteTxOptions } from './database.js';

const SAVEPOINT = CompiledQuery.raw('savepoint group_unit');
const RELEASE = CompiledQuery.raw('release group_unit');
const ROLLBACK_TO = CompiledQuery.raw('rollback to group_unit');

interface Unit {
  fn: (trx: Tx) => Promise<unknown>;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

/** One turn of the event loop: I/O callbacks (requests, reads) that arrived meanwhile run first. */
const turn = () => new Promise<void>((r) => setImmediate(r));

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export class GroupCommit {
  private queue: Unit[] = [];
  private draining = false;
  batches = 0;
  units = 0;

  /**
   * @param yieldEvery units run between two turns of the event loop inside a batch. The units'
   * statements only await microtasks, so a long batch would hold the loop (and every read and new
   * request behind it) until its COMMIT. The writer stays held across the turn (other writes wait
   * for it as for any transaction); reads use their own connection and see the last commit.
   */
  constructor(
    private readonly db: Db,
    private readonly maxBatch = 256,
    private readonly yieldEvery = 8,
  ) {
    this.perUnit = engineOf(db) === 'postgres';
  }

  private readonly perUnit: boolean;

  /** `opts`: the unit's transaction on PostgreSQL (writeTx); a SQLite group runs every unit alike. */
  run<T>(fn: (trx: Tx) => Promise<T>, opts: WriteTxOptions = {}): Promise<T> {
    if (this.perUnit) return writeTx(this.db, fn, opts);
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        // One event-loop turn first: requests whose reads were queued behind the last commit (auth,
        // replay lookup) reach the queue and join this batch instead of each paying a commit.
        await turn();
        const batch = this.queue.splice(0, this.maxBatch);
        let outcomes: Outcome[];
        try {
          outcomes = await writeTx(this.db, async (trx) => {
            const done: Outcome[] = [];
            for (const [i, unit] of batch.entries()) {
              if (i > 0 && i % this.yieldEvery === 0) await turn();
              done.push(await this.runUnit(trx, unit));
            }
            return done;
          });
        } catch (error) {
          // BEGIN or COMMIT failed: nothing of the batch is durable, every unit hears so.
          for (const unit of batch) unit.reject(error);
          continue;
        }
        this.batches++;
        this.units += batch.length;
        batch.forEach((unit, i) => {
          const o = outcomes[i] as Outcome;
          if (o.ok) unit.resolve(o.value);
          else unit.reject(o.error);
        });
      }
    } finally {
      this.draining = false;
    }
  }

  private async runUnit(trx: Tx, unit: Unit): Promise<Outcome> {
    await trx.executeQuery(SAVEPOINT);
    try {
      const value = await unit.fn(trx);
      await trx.executeQuery(RELEASE);
      return { ok: true, value };
    } catch (error) {
      try {
        await trx.executeQuery(ROLLBACK_TO);
      } catch (lost) {
        // SQLite ends the whole transaction itself on some errors (SQLITE_FULL, SQLITE_IOERR): no
        // savepoint is left, and nothing of the batch stands. The batch fails with the error that
        // ended it, so every unit hears "unavailable, retry" (503) and the log names the cause,
        // not the missing savepoint (a 500).
        throw isDatabaseUnavailable(error) ? error : lost;
      }
      await trx.executeQuery(RELEASE);
      return { ok: false, error };
    }
  }
}

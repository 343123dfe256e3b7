/**
 * Expiry: `created` invoices whose expires_at has passed become `expired`. Each status change and
 * its `invoice.expired` event commit in one transaction; the status guard in the UPDATE makes a
 * concurrent change (a deposit seen meanwhile by the watcher) win instead of being overwritten.
 *
 * `horizon` is the moment up to which the chain has been scanned: an invoice must not expire
 * before the watcher has looked at the blocks up to its expires_at (a deposit in an earlier block
 * would otherwise find it expired). serve passes the chain watcher's horizon as a reader (the last
 * scanned block's time), read inside each write transaction: a rollback committed after the job
 * started moves the horizon back to the common ancestor, and an invoice paid in time in an
 * orphaned block must not expire on the horizon read before it. A fixed Date serves operator
 * tools and tests; without one the clock is used.
 */
import type { Clock } from '../clock.js';
import { writeTx, type Db, type Executor } from '../db/database.js';
import { overdueCreated, transitionInvoice } from './store.js';
import { invoiceView } from './view.js';
import { recordEvent, subjectEventCount } from '../webhooks/outbox.js';

/** Reads the scan horizon where the caller is (null: nothing scanned yet, so nothing expires). */
export type HorizonReader = (db: Executor) => Promise<Date | null>;

export interface ExpiryOptions {
  /** Invoices per transaction (keeps the write lock short under a backlog). */
  batch?: number;
  horizon?: Date | HorizonReader;
}

/** Runs until no overdue `created` invoice is left; returns how many were expired. */
export async function expireInvoices(db: Db, clock: Clock, opts: ExpiryOptions = {}): Promise<number> {
  const batch = opts.batch ?? 200;
  const now = clock.now();
  const until = async (at: Executor): Promise<string> => {
    const h = typeof opts.horizon === 'function' ? ((await opts.horizon(at)) ?? new Date(0)) : opts.horizon;
    return (h && h < now ? h : now).toISOString();
  };
  let total = 0;
  for (;;) {
    // Most ticks find nothing due: look first, without taking the write lock.
    if ((await overdueCreated(db, await until(db), 1)).length === 0) return total;
    const done = await writeTx(db, async (trx) => {
      const due = await overdueCreated(trx, await until(trx), batch);
      let n = 0;
      for (const row of due) {
        const at = clock.now().toISOString();
        if (!(await transitionInvoice(trx, row.id, 'created', 'expired', at))) continue;
        const view = invoiceView({ ...row, status: 'expired', updated_at: at });
        // The same key scheme as the watcher's settlement (a status may be entered again after a fork).
        const prior = await subjectEventCount(trx, row.id);
        await recordEvent(trx, clock, {
          merchantId: row.merchant_id,
          type: 'invoice.expired',
          subjectId: row.id,
          data: view,
          key: `invoice:${row.id}:expired:${prior}`,
        });
        n++;
      }
      return { n, more: due.length === batch };
    });
    total += done.n;
    if (!done.more) return total;
  }
}

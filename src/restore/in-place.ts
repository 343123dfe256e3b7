/**
 * `paygate restore --in-place`: a database restored by other means than `paygate restore` (on
 * PostgreSQL, pg_restore of a dump or a point-in-time recovery; docs/operations/postgresql.md, "PostgreSQL")
 * made safe where it is, as `restore` makes a restored SQLite copy safe before it takes the old
 * file's place. A restore is the past and the chain moved on: payouts and sweeps are halted, each
 * payout it shows unfinished is held (restore/payout-holds.ts), and the deposit indexes that may have
 * been handed out after the restore point are skipped and watched (restore/derivation-gap.ts). Refused
 * while a worker lease is live: every `serve` on the database must be stopped first.
 */
import { RESTORE_GAP, estimateWatched, skipDerivationRange, type DerivationGap } from './derivation-gap.js';
import { databaseLabel, type DatabaseTarget } from '../config.js';
import { openDatabase, writeTx } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { holdAfterRestore, type HeldPayout } from './payout-holds.js';
import { assertNoLiveLease } from '../runtime/lease.js';
import type { RestoreOptions } from './backup.js';

export interface InPlaceResult {
  database: string;
  /** The payout worker and the sweeper are halted until `paygate payout resume --worker`. */
  worker_halted: true;
  /** Payouts held until the chain since the restore point is read, then the operator's decision. */
  payouts_held: number;
  /** Each held payout: what to look for among the hot wallet's transfers out since the restore point. */
  held_payouts: HeldPayout[];
  /** Deposit indexes skipped and watched; null when the database has no wallet. */
  derivation_gap: DerivationGap | null;
}

export async function secureRestoredDatabase(
  target: DatabaseTarget,
  now: Date,
  actor: string,
  opts: RestoreOptions = {},
): Promise<InPlaceResult> {
  const database = openDatabase(target);
  try {
    // The restored rows name the lease holder of the restore point; it has lapsed unless a serve
    // runs on this database now, and one that runs would hand out indexes inside the gap.
    await assertNoLiveLease(database.db, { now: () => now });
    await migrateToLatest(database.db);
    const { held, payouts } = await writeTx(database.db, (trx) =>
      holdAfterRestore(trx, { now: () => now }, actor, '--in-place'),
    );
    const gap = await skipDerivationRange(
      database.db,
      opts.gap ?? RESTORE_GAP,
      opts.watch ?? (await estimateWatched(database.db, now)),
      now.toISOString(),
      `restore in place by ${actor}`,
      opts.onGapProgress,
    );
    return {
      database: databaseLabel(target),
      worker_halted: true,
      payouts_held: held,
      held_payouts: payouts,
      derivation_gap: gap,
    };
  } finally {
    await database.close();
  }
}

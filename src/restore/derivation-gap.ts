/**
 * The derivation gap of a restore. The deposit index counter lives in the database, so a restored
 * backup would hand out again every index given away since it was taken: a per-user permanent
 * address of one merchant could become another merchant's invoice address. The restore raises the
 * counter past the indexes that may have been handed out meanwhile (a wide margin, cheap: nothing
 * is derived for it) and keeps the addresses of the gap's first indexes watched (as many as the
 * instance can have handed out since the backup, estimated with a margin), so a payment to one is
 * seen (an unattributed deposit) and credited to no one.
 */
import { writeTx, type Db, type Executor } from '../db/database.js';
import { DepositKeyChain, INDEX_SPACE } from '../wallet/hd.js';
import { findWallet } from '../wallet/store.js';

/** Indexes skipped by a restore: more than any instance hands out between two backups. */
export const RESTORE_GAP = 100_000;
/** Addresses of a gap watched at least, whatever the estimate: about a second of derivation. */
export const MIN_WATCHED = 1_000;
/** Addresses derived and stored per write transaction. */
const CHUNK = 1_000;
/** Addresses counted back from the newest to measure how fast the instance hands them out. */
const RATE_SAMPLE = 10_000;
/** The shortest period a rate is measured over: a burst of minutes is not a day's rate. */
const RATE_FLOOR_MS = 3_600_000;
/** The estimate is doubled: a busier stretch than the one measured. */
const SAFETY = 2;

export interface DerivationGap {
  /** First and last skipped index, both included. */
  from_index: number;
  to_index: number;
  /** Addresses of the gap now watched: those from `from_index` to `watched_to_index`. */
  addresses: number;
  /** The last watched index: the indexes after it, up to `to_index`, are skipped and not watched. */
  watched_to_index: number;
}

/**
 * How many indexes of a gap to watch: the addresses a payment can reach are those handed out since
 * the backup, and indexes are handed out in order, so they are the gap's first ones. Estimated from
 * the backup itself: the rate at which its newest addresses were handed out, times the time since
 * the newest one, doubled, plus MIN_WATCHED. Two primary-key lookups and one bounded count.
 */
export async function estimateWatched(db: Executor, now: Date): Promise<number> {
  const newest = await db
    .selectFrom('deposit_addresses')
    .select(['derivation_index', 'created_at'])
    .orderBy('derivation_index', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!newest) return MIN_WATCHED;
  const older =
    (await db
      .selectFrom('deposit_addresses')
      .select(['derivation_index', 'created_at'])
      .where('derivation_index', '<=', Number(newest.derivation_index) - RATE_SAMPLE)
      .orderBy('derivation_index', 'desc')
      .limit(1)
      .executeTakeFirst()) ??
    (await db
      .selectFrom('deposit_addresses')
      .select(['derivation_index', 'created_at'])
      .orderBy('derivation_index', 'asc')
      .limit(1)
      .executeTakeFirstOrThrow());
  // Counted, not subtracted: an earlier restore's gap between the two handed nothing out.
  const { n } = await db
    .selectFrom('deposit_addresses')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('derivation_index', '>=', older.derivation_index)
    .where('derivation_index', '<=', newest.derivation_index)
    .executeTakeFirstOrThrow();
  const newestAt = Date.parse(newest.created_at);
  const span = Math.max(newestAt - Date.parse(older.created_at), RATE_FLOOR_MS);
  const elapsed = Math.max(now.getTime() - newestAt, 0);
  return MIN_WATCHED + Math.ceil((SAFETY * Number(n) * elapsed) / span);
}

/**
 * Skips `size` deposit indexes from the next one: moves the counter past them and records the
 * gap, and derives and stores the addresses of its first `watched` indexes (all of them when
 * fewer) as unattributed addresses. The rest of the gap is never handed out and not derived: a
 * restore takes seconds, and the database does not grow by the whole range. Null when the
 * database has no wallet yet (no index was ever handed out from it) or no index is left. For a
 * database no other process can open (the restored copy): the counter moves only once every
 * watched address is stored.
 */
export async function skipDerivationRange(
  db: Db,
  size: number,
  watched: number,
  recordedAt: string,
  reason: string,
  onProgress: (done: number, total: number) => void = () => {},
): Promise<DerivationGap | null> {
  const wallet = await findWallet(db);
  if (!wallet) return null;
  const from = wallet.next_index;
  const to = Math.min(from + size, INDEX_SPACE) - 1;
  if (to < from) return null;
  const watchedTo = Math.min(to, from + Math.max(1, watched) - 1);
  const chain = new DepositKeyChain(wallet.deposit_xpub);
  const total = watchedTo - from + 1;
  for (let start = from; start <= watchedTo; start += CHUNK) {
    const rows: Array<{ derivation_index: number; address: string }> = [];
    for (let i = start; i <= Math.min(watchedTo, start + CHUNK - 1); i++) {
      const address = chain.addressAt(i); // null: an index BIP32 makes invalid, which has no address
      if (address !== null) rows.push({ derivation_index: i, address });
    }
    await writeTx(db, (trx) =>
      trx
        .insertInto('unattributed_addresses')
        .values(rows)
        .onConflict((oc) => oc.doNothing())
        .execute(),
    );
    onProgress(start - from + rows.length, total);
  }
  await writeTx(db, async (trx) => {
    await trx
      .updateTable('wallet')
      .set({ next_index: to + 1 })
      .where('id', '=', 1)
      .where('next_index', '=', from)
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('derivation_gaps')
      .values({ from_index: from, to_index: to, watched_to_index: watchedTo, recorded_at: recordedAt, reason })
      .execute();
  });
  return { from_index: from, to_index: to, addresses: total, watched_to_index: watchedTo };
}

/** Addresses per `in (…)` query, well under SQLite's limit on bound parameters. */
const LOOKUP_CHUNK = 500;

/** The addresses of restore gaps among `addresses`, found through the unique index on the address. */
export async function findUnattributedAddresses(
  db: Executor,
  addresses: readonly string[],
): Promise<Array<{ address: string; derivation_index: number }>> {
  const found: Array<{ address: string; derivation_index: number }> = [];
  for (let i = 0; i < addresses.length; i += LOOKUP_CHUNK) {
    found.push(
      ...(await db
        .selectFrom('unattributed_addresses')
        .selectAll()
        .where('address', 'in', addresses.slice(i, i + LOOKUP_CHUNK))
        .execute()),
    );
  }
  return found;
}

/**
 * The derivation gap of a restore. The deposit index counter lives in the database, so a restored
 * backup would hand out again every index given away since it was taken: a per-user permanent
 * address of one merchant could become another merchant's invoice address. The restore raises the
 * counter past the indexes that may have been handed out meanwhile and keeps their addresses
 * watched, so a payment to one is seen (an unattributed deposit) and credited to no one.
 */
import { writeTx, type Db, type Executor } from '../db/database.js';
import { DepositKeyChain, INDEX_SPACE } from '../wallet/hd.js';
import { findWallet } from '../wallet/store.js';

/** Indexes skipped by a restore: more than any instance hands out between two backups. */
export const RESTORE_GAP = 100_000;
/** Addresses derived and stored per write transaction. */
const CHUNK = 1_000;

export interface DerivationGap {
  /** First and last skipped index, both included. */
  from_index: number;
  to_index: number;
  /** Addresses of the gap now watched. */
  addresses: number;
}

/**
 * Skips `size` deposit indexes from the next one: derives their addresses from the wallet's xpub,
 * stores them as unattributed addresses, then moves the counter past them and records the gap.
 * Null when the database has no wallet yet (no index was ever handed out from it) or no index is
 * left. For a database no other process can open (the restored copy): the counter moves only once
 * every address of the gap is stored.
 */
export async function skipDerivationRange(
  db: Db,
  size: number,
  recordedAt: string,
  reason: string,
  onProgress: (done: number, total: number) => void = () => {},
): Promise<DerivationGap | null> {
  const wallet = await findWallet(db);
  if (!wallet) return null;
  const from = wallet.next_index;
  const to = Math.min(from + size, INDEX_SPACE) - 1;
  if (to < from) return null;
  const chain = new DepositKeyChain(wallet.deposit_xpub);
  const total = to - from + 1;
  for (let start = from; start <= to; start += CHUNK) {
    const rows: Array<{ derivation_index: number; address: string }> = [];
    for (let i = start; i <= Math.min(to, start + CHUNK - 1); i++)
      rows.push({ derivation_index: i, address: chain.addressAt(i) });
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
      .values({ from_index: from, to_index: to, recorded_at: recordedAt, reason })
      .execute();
  });
  return { from_index: from, to_index: to, addresses: total };
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

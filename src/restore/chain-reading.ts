/**
 * The chain reading after a restore (docs/adr/0068-the-chain-says-which-payouts-were-sent.md). A
 * restored database does not know what was signed after the backup, but the chain does: the
 * watcher records every transfer out of the hot wallet (watcher/hot-wallet.ts), and those the
 * restored database did not sign are `unknown`. `paygate restore` starts a reading from the
 * backup's height (the restored cursor); the watcher notes the head it sees first after the restore
 * and, once the block READING_MARGIN_BLOCKS above it is final, matches each held payout to the unknown transfers out by asset,
 * address and amount, in its write transaction:
 * - exactly one transfer, claimed by no other held payout: the payout was sent with it, and becomes
 *   `confirmed` with that txid (ledger and `payout.confirmed` event in the same transaction);
 * - a transfer that landed before a payout was created is never that payout's (payout-matching.ts):
 *   a merchant who sends a request again during the reading cannot make a held payout's match ambiguous;
 * - none, or several: it stays held, its hold saying so, listed by `payout list --unknown-on-chain`
 *   with its candidates, for the operator's `payout approve` (send it) or `payout cancel`.
 * Until the reading is done, `payout approve` of a held payout answers invalid_state.
 */
import { recordAudit } from '../audit/store.js';
import type { Clock } from '../clock.js';
import type { Executor, Tx } from '../db/database.js';
import type { HotWalletTransfersTable, RestoreReadingTable } from '../db/tables/hot-wallet.js';
import { AppError } from '../errors.js';
import { formatUnits } from '../money.js';
import { holdOfNewPayout, isCandidate, OPEN } from './payout-matching.js';
import { operatorView, type OperatorPayoutView } from '../payouts/operator-view.js';
import type { PayoutRow } from '../payouts/store.js';
import { transitionPayout } from '../payouts/transitions.js';

export const CHAIN_ACTOR = 'chain';

/**
 * Blocks read past the head seen first after the restore: a transaction the old instance signed
 * expires 60 s after its reference block (the payout worker's and tronweb's expiration), which is
 * at or below that head, so it can only land within 20 blocks (3 s each) above it; 30 cover it.
 */
export const READING_MARGIN_BLOCKS = 30;

export async function readingState(db: Executor): Promise<RestoreReadingTable | undefined> {
  return db.selectFrom('restore_reading').selectAll().where('id', '=', 1).executeTakeFirst();
}

/** Why a payout requested while the chain since a restore is read waits (service.ts). */
export const HELD_DURING_READING =
  'requested while the chain since a restore is being read: a request the restore lost and sent again may have been paid already, so it is matched against the chain like the restored payouts, then payout approve (send it) or payout cancel (release it)';

/** Whether the chain since a restore is still being read (held payouts cannot be approved yet). */
export async function readingPending(db: Executor): Promise<boolean> {
  const r = await readingState(db);
  return r !== undefined && r.done_at === null;
}

/**
 * `payout approve`, `reject` and `cancel` of a held payout wait for the reading: it may have been
 * sent after the backup, and neither sending it again nor releasing its money is safe before then.
 */
export async function assertReadingDone(
  db: Executor,
  row: PayoutRow,
  action: 'approve' | 'reject' | 'cancel' | 'confirm' = 'approve',
): Promise<void> {
  if (row.hold_reason !== null && (await readingPending(db)))
    throw new AppError(
      'invalid_state',
      `Payout ${row.id} is held since a restore and the chain since the backup is still being read; ${action} it once the reading is done (paygate payout list --unknown-on-chain)`,
    );
}

/**
 * At restore, in the restored database: the reading starts at the restored cursor's next block
 * (the backup's height); a backup without a cursor is read from about when its oldest held payout
 * was created (the watcher's first scan starts there).
 */
export async function beginReading(trx: Tx, clock: Clock, actor: string, heldSince: string | null): Promise<void> {
  const cursor = await trx.selectFrom('chain_cursor').select('next_block').where('id', '=', 1).executeTakeFirst();
  const now = clock.now().toISOString();
  const row: RestoreReadingTable = {
    id: 1,
    from_block: cursor?.next_block ?? null,
    from_time: heldSince ?? now,
    until_block: null,
    started_at: now,
    started_by: actor,
    done_at: null,
    matched: null,
    unresolved: null,
  };
  const { id: _id, ...rest } = row;
  await trx
    .insertInto('restore_reading')
    .values(row)
    .onConflict((oc) => oc.column('id').doUpdateSet(rest))
    .execute();
}

/** Unknown transfers out inside the reading's range (the backup's height up to `until`, or on). */
function readingTransfers(trx: Executor, r: RestoreReadingTable, until: number | null) {
  let q = trx.selectFrom('hot_wallet_transfers').selectAll().where('kind', '=', 'unknown');
  if (until !== null) q = q.where('block_number', '<=', until);
  q = r.from_block !== null ? q.where('block_number', '>=', r.from_block) : q.where('block_time', '>=', r.from_time);
  return q.orderBy('block_number').execute();
}

async function heldPayouts(db: Executor): Promise<PayoutRow[]> {
  return db
    .selectFrom('payouts')
    .selectAll()
    .where('hold_reason', 'is not', null)
    .where('status', 'in', OPEN)
    .orderBy('created_at')
    .execute();
}

function unresolvedReason(candidates: HotWalletTransfersTable[]): string {
  if (candidates.length === 0)
    return 'restored from a backup: the chain since the backup shows no transfer out of the hot wallet that matches it (it was not sent); payout approve sends it, payout cancel releases it';
  return `restored from a backup: ${candidates.length} transfer(s) out of the hot wallet since the backup match its asset, address and amount (${candidates.map((c) => c.tx_hash).join(', ')}), or another held payout claims the same one; check which paid it (paygate payout list --unknown-on-chain), then payout approve or payout cancel`;
}

/** The held payout was sent with `t`: confirmed with its txid, the transfer its. */
async function foundOnChain(trx: Tx, clock: Clock, p: PayoutRow, t: HotWalletTransfersTable): Promise<void> {
  await transitionPayout(trx, clock, p, {
    to: 'confirmed',
    actor: CHAIN_ACTOR,
    foundOnChain: true,
    patch: { tx_hash: t.tx_hash, hold_reason: null, wait_reason: null },
  });
  await trx
    .updateTable('hot_wallet_transfers')
    .set({ kind: 'restore_match', payout_id: p.id })
    .where('tx_hash', '=', t.tx_hash)
    .where('log_index', '=', t.log_index)
    .execute();
  await recordAudit(trx, clock, {
    actor: CHAIN_ACTOR,
    action: 'payout.found_on_chain',
    subjectType: 'payout',
    subjectId: p.id,
    merchantId: p.merchant_id,
    details: { status: p.status, tx_hash: t.tx_hash, block_number: t.block_number },
  });
}

/**
 * A held payout the chain did not settle stays held, saying why. One with no candidate that an
 * unknown transfer still matches (a request the restore lost, sent again during the reading after
 * it was paid) is held by that transfer, as a request made after the reading would be.
 */
async function leaveHeld(trx: Tx, p: PayoutRow, candidates: HotWalletTransfersTable[]): Promise<void> {
  const hold = candidates.length === 0 ? await holdOfNewPayout(trx, p) : null;
  await trx
    .updateTable('payouts')
    .set(hold ?? { hold_reason: unresolvedReason(candidates) })
    .where('id', '=', p.id)
    .where('status', '=', p.status)
    .execute();
}

/**
 * The watcher's step, inside its write transaction once a range is committed: notes the head seen
 * first after the restore and, once that height is final (`final`), matches the held payouts and
 * ends the reading. Returns true when the reading ended here.
 */
export async function advanceReading(trx: Tx, clock: Clock, head: number, final: number): Promise<boolean> {
  const r = await readingState(trx);
  if (r === undefined || r.done_at !== null) return false;
  if (r.until_block === null) {
    await trx
      .updateTable('restore_reading')
      .set({ until_block: head + READING_MARGIN_BLOCKS })
      .where('id', '=', 1)
      .execute();
    return false;
  }
  if (final < r.until_block) return false;
  const transfers = await readingTransfers(trx, r, r.until_block);
  const held = await heldPayouts(trx);
  const candidatesOf = new Map(held.map((p) => [p.id, transfers.filter((t) => isCandidate(p, t))]));
  // How many held payouts each transfer may be: one that two may be settles neither.
  const claims = new Map<string, number>();
  for (const c of candidatesOf.values()) for (const t of c) claims.set(t.tx_hash, (claims.get(t.tx_hash) ?? 0) + 1);
  let matched = 0;
  const left: { p: PayoutRow; candidates: HotWalletTransfersTable[] }[] = [];
  for (const p of held) {
    // Its own stored transaction landed: the worker follows it to its end as usual.
    const own = p.tx_hash
      ? await trx.selectFrom('hot_wallet_transfers').select('tx_hash').where('payout_id', '=', p.id).executeTakeFirst()
      : undefined;
    if (own) continue;
    const candidates = (candidatesOf.get(p.id) ?? []).filter((t) => t.kind === 'unknown');
    const only = candidates[0];
    if (candidates.length === 1 && only && claims.get(only.tx_hash) === 1) {
      await foundOnChain(trx, clock, p, only);
      only.kind = 'restore_match';
      matched++;
    } else left.push({ p, candidates });
  }
  for (const { p, candidates } of left) await leaveHeld(trx, p, candidates);
  await trx
    .updateTable('restore_reading')
    .set({ done_at: clock.now().toISOString(), matched, unresolved: left.length })
    .where('id', '=', 1)
    .execute();
  return true;
}

export interface ChainCandidate {
  tx_hash: string;
  block_number: number;
  block_time: string;
}

export interface UnknownOnChainPayout extends OperatorPayoutView {
  /** Transfers out of the hot wallet, unknown to this database, with its asset, address and amount. */
  candidates: ChainCandidate[];
}

export interface UnknownOnChain {
  /** in_progress while the chain since the backup is being read; none when no restore started one. */
  reading: 'in_progress' | 'done' | 'none';
  reading_from_block: number | null;
  reading_until_block: number | null;
  payouts: UnknownOnChainPayout[];
  /** Transfers out that paygate did not sign and no held payout took. */
  unknown_transfers: { tx_hash: string; asset: string; to_address: string; amount: string; block_number: number }[];
}

/** `paygate payout list --unknown-on-chain`: the held payouts the chain could not settle, with their candidates. */
export async function listUnknownOnChain(db: Executor): Promise<UnknownOnChain> {
  const r = await readingState(db);
  const transfers = await db.selectFrom('hot_wallet_transfers').selectAll().where('kind', '=', 'unknown').execute();
  const payouts = (await heldPayouts(db)).map((p) => ({
    ...operatorView(p),
    candidates: transfers
      .filter((t) => isCandidate(p, t))
      .map((t) => ({ tx_hash: t.tx_hash, block_number: t.block_number, block_time: t.block_time })),
  }));
  const unknown = await db
    .selectFrom('hot_wallet_transfers')
    .selectAll()
    .where('kind', '=', 'unknown')
    .orderBy('block_number', 'desc')
    .limit(100)
    .execute();
  return {
    reading: r === undefined ? 'none' : r.done_at === null ? 'in_progress' : 'done',
    reading_from_block: r?.from_block ?? null,
    reading_until_block: r?.until_block ?? null,
    payouts,
    unknown_transfers: unknown.map((t) => ({
      tx_hash: t.tx_hash,
      asset: t.asset,
      to_address: t.to_address,
      amount: formatUnits(t.amount, t.decimals),
      block_number: t.block_number,
    })),
  };
}

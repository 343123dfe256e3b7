/**
 * Which transfers out of the hot wallet that paygate did not sign may be a payout's: the same
 * asset, address and amount, and landed after the payout was created (a transfer cannot pay a
 * payout that did not exist yet), except the transfer that held the payout at its creation, which
 * is always its candidate (a request the merchant sent again after a restore lost it, paid before
 * the new one existed). A new payout that matches an unknown transfer is held with that reason until
 * the operator settles it (`payout approve --chain-checked`, `payout confirm --txid`, `payout cancel`).
 */
import type { Executor } from '../db/database.js';
import type { PayoutStatus } from '../db/schema.js';
import type { HotWalletTransfersTable } from '../db/tables/hot-wallet.js';
import type { PayoutRow } from '../payouts/store.js';

/** Statuses of a payout that is not final: what it matches may still leave, or may have left. */
export const OPEN: readonly PayoutStatus[] = ['pending_review', 'approved', 'queued', 'signing', 'broadcast'];

export interface TransferKey {
  asset: string;
  to_address: string;
  amount: string;
}

export const keyOf = (x: TransferKey) => `${x.asset}|${x.to_address}|${x.amount}`;

/** Whether a transfer may be the payout's, by key and time (the transfer that held it always may). */
export function isCandidate(
  p: Pick<PayoutRow, 'asset' | 'to_address' | 'amount' | 'created_at' | 'hold_tx_hash'>,
  t: HotWalletTransfersTable,
): boolean {
  if (keyOf(t) !== keyOf(p)) return false;
  return t.tx_hash === p.hold_tx_hash || Date.parse(t.block_time) >= Date.parse(p.created_at);
}

/** The unknown transfers out with this asset, address and amount, oldest first. */
export async function unknownMatching(db: Executor, key: TransferKey): Promise<HotWalletTransfersTable[]> {
  return db
    .selectFrom('hot_wallet_transfers')
    .selectAll()
    .where('kind', '=', 'unknown')
    .where('asset', '=', key.asset)
    .where('to_address', '=', key.to_address)
    .where('amount', '=', key.amount)
    .orderBy('block_number')
    .execute();
}

/** The unknown transfers that may be this payout's. */
export async function candidatesOf(db: Executor, p: PayoutRow): Promise<HotWalletTransfersTable[]> {
  return (await unknownMatching(db, p)).filter((t) => isCandidate(p, t));
}

/** The payouts that are not final with a transfer's asset, address and amount. */
export async function openPayoutsMatching(db: Executor, key: TransferKey): Promise<string[]> {
  const rows = await db
    .selectFrom('payouts')
    .select('id')
    .where('status', 'in', OPEN)
    .where('asset', '=', key.asset)
    .where('to_address', '=', key.to_address)
    .where('amount', '=', key.amount)
    .orderBy('created_at')
    .execute();
  return rows.map((r) => r.id);
}

/**
 * The hold of a payout created while an unknown transfer out with its asset, address and amount
 * stands: the newest such transfer holds it.
 */
export async function holdOfNewPayout(
  db: Executor,
  key: TransferKey,
): Promise<{ hold_reason: string; hold_tx_hash: string } | null> {
  const found = await unknownMatching(db, key);
  const newest = found.at(-1);
  if (newest === undefined) return null;
  return {
    hold_tx_hash: newest.tx_hash,
    hold_reason: `a transfer out of the hot wallet that paygate did not sign has this payout's asset, address and amount (${found.map((t) => t.tx_hash).join(', ')}): it may be this intent paid already (a request sent again). Check the chain, then payout confirm --txid (it was paid), payout approve --chain-checked (send it) or payout cancel (release it)`,
  };
}

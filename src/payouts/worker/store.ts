/** SQL of the payout worker: the payouts of one status in the order it works them, wait reasons. */
import type { Executor, Tx } from '../../db/database.js';
import { afterKey } from '../../db/keyset.js';
import type { PayoutStatus } from '../../db/schema.js';
import { formatUnits } from '../../money.js';
import type { PayoutRow } from '../store.js';

export interface PageCursor {
  created_at: string;
  id: string;
}

/** Oldest first, after `after` (the last row of the previous page): waiting payouts never starve the rest. */
export async function payoutsIn(
  db: Executor,
  status: PayoutStatus,
  limit: number,
  after: PageCursor | null = null,
): Promise<PayoutRow[]> {
  let q = db.selectFrom('payouts').selectAll().where('status', '=', status);
  if (after) q = q.where((eb) => afterKey(eb, 'created_at', 'id', { at: after.created_at, id: after.id }, 'asc'));
  return q.orderBy('created_at').orderBy('id').limit(limit).execute();
}

/** Payouts signed and not yet settled: what the hot wallet has on its way (HotWalletBudget). */
export async function inFlightPayouts(db: Executor): Promise<Pick<PayoutRow, 'asset' | 'amount' | 'fee_limit'>[]> {
  return db
    .selectFrom('payouts')
    .select(['asset', 'amount', 'fee_limit'])
    .where('status', 'in', ['signing', 'broadcast'])
    .execute();
}

/** Payouts waiting for the payout worker (approved or queued), for /metrics. */
export async function queuedPayoutCount(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('payouts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', 'in', ['approved', 'queued'])
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Records why a payout waits (only when it changed, so a waiting payout costs no write per tick). */
export async function setWaitReason(db: Tx, row: PayoutRow, reason: string | null): Promise<boolean> {
  if (row.wait_reason === reason) return false;
  const r = await db
    .updateTable('payouts')
    .set({ wait_reason: reason })
    .where('id', '=', row.id)
    .where('status', '=', row.status)
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

export interface WaitingPayout {
  payout_id: string;
  status: PayoutStatus;
  asset: string;
  amount: string;
  reason: string;
}

/** Payouts the worker holds back and why (`wallet show`, `payout list`). */
export async function waitingPayouts(db: Executor, limit = 20): Promise<WaitingPayout[]> {
  const rows = await db
    .selectFrom('payouts')
    .select(['id', 'status', 'asset', 'amount', 'decimals', 'wait_reason'])
    .where('wait_reason', 'is not', null)
    .where('status', 'in', ['approved', 'queued', 'signing'])
    .orderBy('created_at')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    payout_id: r.id,
    status: r.status,
    asset: r.asset,
    amount: formatUnits(r.amount, r.decimals),
    reason: r.wait_reason as string,
  }));
}

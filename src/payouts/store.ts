/**
 * SQL for payouts. Every read a merchant can trigger takes merchant_id; the operator's reads
 * (`payout list|approve|reject`) are named as such.
 */
import type { Executor, Tx } from '../db/database.js';
import { afterKey } from '../db/keyset.js';
import type { PayoutsTable, PayoutStatus } from '../db/schema.js';
import type { PageKey } from '../http/pagination.js';

export type PayoutRow = PayoutsTable;

/** Statuses whose amount no longer leaves (or never left) the wallet. */
export const CLOSED_UNPAID: readonly PayoutStatus[] = ['rejected', 'failed'];

/** The worker's columns of a payout nobody has signed yet (migrations 0033, 0045, 0065). */
export const NOT_SIGNED = {
  signed_tx: null,
  tx_expiration: null,
  sign_attempts: 0,
  first_signed_at: null,
  fee_limit: null,
  wait_reason: null,
  network_fee: null,
  fail_reason: null,
  hold_reason: null,
  hold_tx_hash: null,
} as const satisfies Partial<PayoutsTable>;

export async function insertPayout(db: Tx, row: PayoutRow): Promise<void> {
  await db.insertInto('payouts').values(row).execute();
}

export async function findPayout(db: Executor, merchantId: string, id: string): Promise<PayoutRow | undefined> {
  return db
    .selectFrom('payouts')
    .selectAll()
    .where('id', '=', id)
    .where('merchant_id', '=', merchantId)
    .executeTakeFirst();
}

export async function findPayoutByReference(
  db: Executor,
  merchantId: string,
  reference: string,
): Promise<PayoutRow | undefined> {
  return db
    .selectFrom('payouts')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where('reference', '=', reference)
    .executeTakeFirst();
}

/** Operator only: a payout by id whatever its merchant. */
export async function findPayoutForOperator(db: Executor, id: string): Promise<PayoutRow | undefined> {
  return db.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirst();
}

export interface OperatorListFilter {
  status?: PayoutStatus;
  merchantId?: string;
  limit: number;
  /** Strictly after this (created_at, id) in the list's order (the console's next page). */
  after?: PageKey | null;
}

/** Operator only: newest first. */
export async function listPayoutsForOperator(db: Executor, f: OperatorListFilter): Promise<PayoutRow[]> {
  let q = db.selectFrom('payouts').selectAll();
  if (f.status) q = q.where('status', '=', f.status);
  if (f.merchantId) q = q.where('merchant_id', '=', f.merchantId);
  const after = f.after;
  if (after) q = q.where((eb) => afterKey(eb, 'created_at', 'id', after, 'desc'));
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(f.limit).execute();
}

/** Amounts (base units) of a merchant's payouts in an asset created in [from, to), rejected and failed excluded. */
export async function amountsCreatedBetween(
  db: Executor,
  merchantId: string,
  asset: string,
  from: string,
  to: string,
): Promise<bigint[]> {
  const rows = await db
    .selectFrom('payouts')
    .select('amount')
    .where('merchant_id', '=', merchantId)
    .where('asset', '=', asset)
    .where('created_at', '>=', from)
    .where('created_at', '<', to)
    .where('status', 'not in', CLOSED_UNPAID)
    .execute();
  return rows.map((r) => BigInt(r.amount));
}

/**
 * Whether the merchant has a payout to `address` in `asset`, created at or after `since`, that an
 * operator or the rules let through.
 */
export async function hasPassedPayoutTo(
  db: Executor,
  merchantId: string,
  asset: string,
  address: string,
  since: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('payouts')
    .select('id')
    .where('merchant_id', '=', merchantId)
    .where('asset', '=', asset)
    .where('to_address', '=', address)
    .where('created_at', '>=', since)
    .where('status', 'in', ['approved', 'queued', 'signing', 'broadcast', 'confirmed'])
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Moves a payout from `from` to `to` with `patch`; false when it was no longer in `from`. */
export async function updatePayoutStatus(
  db: Tx,
  id: string,
  from: PayoutStatus,
  patch: Partial<PayoutRow> & { status: PayoutStatus; updated_at: string },
): Promise<boolean> {
  const r = await db
    .updateTable('payouts')
    .set(patch)
    .where('id', '=', id)
    .where('status', '=', from)
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/**
 * Holds every payout in `statuses` not held yet with `reason` (a restore, restore/payout-holds.ts);
 * returns them as they were, oldest first.
 */
export async function holdUnheldPayouts(trx: Tx, statuses: readonly PayoutStatus[], reason: string) {
  const rows = await trx
    .selectFrom('payouts')
    .select(['id', 'merchant_id', 'status', 'asset', 'amount', 'decimals', 'to_address', 'created_at'])
    .where('status', 'in', statuses)
    .where('hold_reason', 'is', null)
    .orderBy('created_at')
    .execute();
  if (rows.length > 0) {
    await trx
      .updateTable('payouts')
      .set({ hold_reason: reason })
      .where('status', 'in', statuses)
      .where('hold_reason', 'is', null)
      .execute();
  }
  return rows;
}

/** When the oldest held payout in `statuses` was created; null when none is held. */
export async function oldestHeldPayoutCreatedAt(
  db: Executor,
  statuses: readonly PayoutStatus[],
): Promise<string | null> {
  const oldest = await db
    .selectFrom('payouts')
    .select('created_at')
    .where('status', 'in', statuses)
    .where('hold_reason', 'is not', null)
    .orderBy('created_at')
    .limit(1)
    .executeTakeFirst();
  return oldest?.created_at ?? null;
}

/**
 * The operator's review of payouts: `payout list [--status]`, `payout approve <id>`,
 * `payout reject <id> --reason`. Only a payout in `pending_review` can be approved or rejected
 * (`invalid_state` otherwise), except that `payout approve` also lifts the hold `paygate restore`
 * puts on an unfinished payout (the chain shows it unsent), once the chain since the backup has
 * been read (restore/chain-reading.ts; `invalid_state` until then). Each action writes its audit record,
 * its status change, its ledger entries and its `payout.<status>` event in one transaction.
 */
import { recordAudit } from '../audit/store.js';
import type { Clock } from '../clock.js';
import { writeTx, type Db, type Tx } from '../db/database.js';
import type { PayoutStatus } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { PageKey } from '../http/pagination.js';
import { requireMerchant } from '../merchants/service.js';
import { refundOfPayout } from '../refunds/store.js';
import { assertWhitelisted } from '../whitelist/service.js';
import { PAYOUT_STATUSES } from './schema.js';
import { findPayoutForOperator, listPayoutsForOperator, type PayoutRow } from './store.js';
import { transitionPayout } from './transitions.js';
import { operatorView, type OperatorPayoutView } from './operator-view.js';
import { candidatesOf } from '../restore/payout-matching.js';
import { assertReadingDone } from '../restore/chain-reading.js';
import { syncPayoutHold } from '../exceptions/payouts.js';

export { operatorView, type OperatorPayoutView } from './operator-view.js';

export const REJECT_REASON_MAX = 500;

async function requirePayout(db: Db, id: string): Promise<PayoutRow> {
  const row = await findPayoutForOperator(db, id);
  if (!row) throw new AppError('payout_not_found', `Payout ${id} does not exist`);
  return row;
}

function requirePending(row: PayoutRow, action: string): void {
  if (row.status !== 'pending_review') {
    throw new AppError(
      'invalid_state',
      `Payout ${row.id} is ${row.status}; only a payout in pending_review can be ${action}`,
    );
  }
}

export interface ApproveOptions {
  /** The operator checked the chain: none of the held payout's candidate transfers paid it. */
  chainChecked?: boolean;
}

export async function approvePayout(
  db: Db,
  clock: Clock,
  actor: string,
  id: string,
  options: ApproveOptions = {},
): Promise<OperatorPayoutView> {
  return writeTx(db, async (trx) => {
    const row = await requirePayout(trx, id);
    // Held since a restore: not before the chain since the backup has been read (it may have been sent).
    await assertReadingDone(trx, row);
    await assertChainChecked(trx, row, options.chainChecked === true);
    if (row.hold_reason !== null && HELD.includes(row.status)) return releaseHold(trx, clock, actor, row);
    requirePending(row, 'approved');
    // An address removed from the whitelist since the request is not paid: reject the payout instead.
    // A refund's payout pays the customer's address, which no whitelist holds.
    if (!(await refundOfPayout(trx, row.id)))
      await assertWhitelisted(trx, row.merchant_id, row.asset, row.to_address, clock.now());
    const at = clock.now().toISOString();
    const { row: next } = await transitionPayout(trx, clock, row, {
      to: 'approved',
      actor,
      patch: { reviewed_by: actor, reviewed_at: at, hold_reason: null },
    });
    await recordAudit(trx, clock, {
      actor,
      action: 'payout.approve',
      subjectType: 'payout',
      subjectId: id,
      merchantId: row.merchant_id,
      details: {
        review_reasons: JSON.parse(row.review_reasons) as string[],
        ...(row.hold_reason !== null ? { hold_reason: row.hold_reason } : {}),
      },
    });
    return operatorView(next);
  });
}

/**
 * A held payout with candidate transfers out (one may have paid it) is sent only on the operator's
 * word that the chain was checked; otherwise the transfer settles it (`payout confirm --txid`).
 */
async function assertChainChecked(trx: Tx, row: PayoutRow, checked: boolean): Promise<void> {
  if (row.hold_reason === null || checked) return;
  const candidates = await candidatesOf(trx, row);
  if (candidates.length > 0)
    throw new AppError(
      'invalid_state',
      `Payout ${row.id} is held and transfer(s) out of the hot wallet that paygate did not sign match it (${candidates.map((c) => c.tx_hash).join(', ')}): if one paid it, payout confirm ${row.id} --txid <txid>; if none did, payout approve ${row.id} --chain-checked`,
    );
}

/** Statuses in which a restore's hold can stand (restore/payout-holds.ts). */
const HELD: readonly PayoutStatus[] = ['approved', 'queued', 'signing', 'broadcast'];

/**
 * `payout approve` of a payout held since a restore: the operator checked the chain and it was not
 * sent; the worker may sign it (again). It then waits for `payout resume --worker` like the rest.
 */
async function releaseHold(trx: Tx, clock: Clock, actor: string, row: PayoutRow): Promise<OperatorPayoutView> {
  const changed = await trx
    .updateTable('payouts')
    .set({ hold_reason: null, wait_reason: null })
    .where('id', '=', row.id)
    .where('status', '=', row.status)
    .executeTakeFirst();
  if (changed.numUpdatedRows === 0n)
    throw new AppError('invalid_state', `Payout ${row.id} changed state meanwhile; read it again`);
  await recordAudit(trx, clock, {
    actor,
    action: 'payout.release_hold',
    subjectType: 'payout',
    subjectId: row.id,
    merchantId: row.merchant_id,
    details: { status: row.status, hold_reason: row.hold_reason },
  });
  await syncPayoutHold(trx, clock, { ...row, hold_reason: null });
  return operatorView({ ...row, hold_reason: null, wait_reason: null });
}

function checkedReason(reason: string): string {
  const why = reason.trim();
  if (why.length < 1 || why.length > REJECT_REASON_MAX)
    throw new AppError('invalid_argument', `--reason must be 1 to ${REJECT_REASON_MAX} characters`);
  return why;
}

/**
 * The payout becomes rejected with the operator's reason (its reservation is released by the
 * transition) and the action is audited. A rejected payout neither waits nor is held.
 */
async function reject(
  trx: Tx,
  clock: Clock,
  actor: string,
  row: PayoutRow,
  why: string,
  audit: { action: 'payout.cancel' | 'payout.reject'; details: Record<string, unknown> },
): Promise<OperatorPayoutView> {
  const { row: next } = await transitionPayout(trx, clock, row, {
    to: 'rejected',
    actor,
    patch: {
      reviewed_by: actor,
      reviewed_at: clock.now().toISOString(),
      reject_reason: why,
      wait_reason: null,
      hold_reason: null,
    },
  });
  await recordAudit(trx, clock, {
    actor,
    ...audit,
    subjectType: 'payout',
    subjectId: row.id,
    merchantId: row.merchant_id,
  });
  return operatorView(next);
}

/** Statuses `payout cancel` stops: nothing has been signed yet (or the last signature provably expired unsent). */
export const CANCELLABLE: readonly PayoutStatus[] = ['pending_review', 'approved', 'queued'];

/**
 * `payout cancel <id> --reason R`: a payout not yet signing becomes rejected and its reservation is
 * released. Once signing has begun a transaction may exist, so it refuses (invalid_state): the
 * worker's compare-and-set makes a cancel that loses the race to signing fail instead of both applying.
 */
export async function cancelPayout(
  db: Db,
  clock: Clock,
  actor: string,
  id: string,
  reason: string,
): Promise<OperatorPayoutView> {
  const why = checkedReason(reason);
  return writeTx(db, async (trx) => {
    const row = await requirePayout(trx, id);
    // A held payout may have been sent after the backup: cancelling it before the reading ends
    // would release money that left the wallet.
    await assertReadingDone(trx, row, 'cancel');
    if (!CANCELLABLE.includes(row.status)) {
      throw new AppError(
        'invalid_state',
        `Payout ${row.id} is ${row.status}; only a payout in ${CANCELLABLE.join(', ')} can be cancelled (signing has begun)`,
      );
    }
    return reject(trx, clock, actor, row, why, { action: 'payout.cancel', details: { reason: why, from: row.status } });
  });
}

export async function rejectPayout(
  db: Db,
  clock: Clock,
  actor: string,
  id: string,
  reason: string,
): Promise<OperatorPayoutView> {
  const why = checkedReason(reason);
  return writeTx(db, async (trx) => {
    const row = await requirePayout(trx, id);
    await assertReadingDone(trx, row, 'reject');
    requirePending(row, 'rejected');
    return reject(trx, clock, actor, row, why, { action: 'payout.reject', details: { reason: why } });
  });
}

export interface ListInput {
  status?: string;
  merchantId?: string;
  limit?: number;
  /** Strictly after this (created_at, id), newest first: the console's next page. */
  after?: PageKey | null;
}

export async function listPayouts(db: Db, input: ListInput): Promise<OperatorPayoutView[]> {
  if (input.status !== undefined && !(PAYOUT_STATUSES as readonly string[]).includes(input.status)) {
    throw new AppError('invalid_argument', `--status must be one of ${PAYOUT_STATUSES.join(', ')}`);
  }
  if (input.merchantId) await requireMerchant(db, input.merchantId);
  const rows = await listPayoutsForOperator(db, {
    ...(input.status ? { status: input.status as PayoutStatus } : {}),
    ...(input.merchantId ? { merchantId: input.merchantId } : {}),
    limit: input.limit ?? 100,
    after: input.after ?? null,
  });
  return rows.map(operatorView);
}

/** One payout as the operator sees it; payout_not_found otherwise. */
export async function showPayout(db: Db, id: string): Promise<OperatorPayoutView> {
  return operatorView(await requirePayout(db, id));
}

/**
 * The customer's side of a refund, on the payment page's listener: the claim link's view and the
 * address. Giving the address is a compare-and-set on the refund's status and makes, in the same
 * transaction, the payout that sends it: reference `refund-{id}`, the refund's reservation moved to
 * it, the fee fixed at the refund's creation, no whitelist, the ordinary review rules with
 * "first payout to the address" judged from the merchant's whole payout history.
 */
import { randomUUID } from 'node:crypto';
import { isOwnAddress } from '../addresses/store.js';
import { isTronAddress } from '../chain/address.js';
import { transactionUrl } from '../chain/explorer.js';
import type { Clock } from '../clock.js';
import type { TronNetwork } from '../config.js';
import { isUniqueViolation, writeTx, type Db, type Executor, type Tx } from '../db/database.js';
import { AppError, validationFailed } from '../errors.js';
import { findInvoice } from '../invoices/store.js';
import { post } from '../ledger/service.js';
import { findMerchant } from '../merchants/store.js';
import { HELD_DURING_READING, readingPending } from '../restore/chain-reading.js';
import { payoutLimits } from '../payouts/limits.js';
import { reviewReasons } from '../payouts/review.js';
import { NETWORK } from '../payouts/service.js';
import { findPayout, findPayoutByReference, insertPayout, NOT_SIGNED, type PayoutRow } from '../payouts/store.js';
import { payoutView } from '../payouts/view.js';
import { formatUnits } from '../money.js';
import { recordEvent } from '../webhooks/outbox.js';
import { moveRefundTo, releaseReservation, REFUND_REFERENCE } from './follow.js';
import type { ClaimView } from './schema.js';
import { findRefund, type RefundRow } from './store.js';

/** "First payout to the address" counts from the beginning: a refund address has no whitelist entry. */
const EVER = '1970-01-01T00:00:00.000Z';

const notFound = () => new AppError('refund_not_found', 'Refund not found');

async function claimView(db: Executor, network: TronNetwork, row: RefundRow): Promise<ClaimView> {
  const merchant = await findMerchant(db, row.merchant_id);
  const invoice = await findInvoice(db, row.merchant_id, row.invoice_id);
  // The transaction is shown once the refund is sent: before that it may still be replaced.
  const payout =
    row.status === 'sent' && row.payout_id ? await findPayout(db, row.merchant_id, row.payout_id) : undefined;
  const txHash = payout?.tx_hash ?? null;
  return {
    refund_id: row.id,
    merchant_name: merchant?.name ?? '',
    order_id: invoice?.order_id ?? '',
    amount: formatUnits(row.amount, row.decimals),
    asset: row.asset,
    status: row.status,
    address: row.address,
    expires_at: new Date(row.expires_at).toISOString(),
    tx_hash: txHash,
    explorer_url: txHash === null ? null : transactionUrl(network, txHash),
  };
}

export async function getClaim(db: Db, network: TronNetwork, id: string): Promise<ClaimView> {
  const row = await findRefund(db, id.toLowerCase(), null);
  if (!row) throw notFound();
  return claimView(db, network, row);
}

/** The payout of a claimed refund, inserted with its reservation and its event. */
async function makePayout(trx: Tx, clock: Clock, row: RefundRow, address: string, now: Date): Promise<PayoutRow> {
  const amount = BigInt(row.amount);
  const reasons = await reviewReasons(trx, {
    merchantId: row.merchant_id,
    asset: row.asset,
    decimals: row.decimals,
    toAddress: address,
    whitelistedAt: EVER,
    amount,
    now,
    limits: await payoutLimits(trx, row.merchant_id),
  });
  const at = now.toISOString();
  const payout: PayoutRow = {
    id: randomUUID(),
    merchant_id: row.merchant_id,
    reference: `${REFUND_REFERENCE}${row.id}`,
    status: reasons.length > 0 ? 'pending_review' : 'approved',
    asset: row.asset,
    network: NETWORK,
    decimals: row.decimals,
    to_address: address,
    amount: row.amount,
    fee_amount: row.fee_amount,
    fee_charged: '0',
    fee_schedule_id: row.fee_schedule_id,
    review_reasons: JSON.stringify(reasons),
    tx_hash: null,
    reviewed_by: null,
    reviewed_at: null,
    reject_reason: null,
    ...NOT_SIGNED,
    hold_reason: (await readingPending(trx)) ? HELD_DURING_READING : null,
    created_at: at,
    updated_at: at,
  };
  await insertPayout(trx, payout);
  // The reservation moves: the refund's is released and the payout's made, the same sum, so the
  // available balance does not change and the payout's own lifecycle releases or debits it.
  await releaseReservation(trx, clock, row, 'customer');
  await post(trx, clock, {
    merchantId: row.merchant_id,
    asset: row.asset,
    kind: 'reserve',
    amount: amount + BigInt(row.fee_amount),
    payoutId: payout.id,
    actor: 'customer',
  });
  await recordEvent(trx, clock, {
    merchantId: row.merchant_id,
    type: `payout.${payout.status}`,
    subjectId: payout.id,
    data: payoutView(payout),
    key: `payout:${payout.id}:${payout.status}`,
  });
  return payout;
}

/**
 * The merchant's own `/v1` payout already holds the reference `refund-{id}` (any printable reference
 * is a merchant's to choose): the refund cannot be paid under it, and nothing changes.
 */
const referenceTaken = (row: RefundRow) =>
  new AppError(
    'reference_conflict',
    `The merchant already made a payout with the reference ${REFUND_REFERENCE}${row.id}, so this refund cannot be paid; the merchant can cancel it and make a new refund`,
  );

/** The address already given: the same again is the answer (200), another is refused. */
function sameAddress(row: RefundRow, address: string): boolean {
  if (row.address === address) return true;
  throw new AppError('refund_address_already_set', 'This refund already has another address');
}

export async function giveAddress(
  db: Db,
  clock: Clock,
  network: TronNetwork,
  id: string,
  address: string,
): Promise<{ view: ClaimView; created: boolean }> {
  if (!isTronAddress(address)) throw validationFailed('body.address', 'is not a TRON address');
  try {
    return await writeTx(db, async (trx) => {
      const row = await findRefund(trx, id.toLowerCase(), null);
      if (!row) throw notFound();
      if (row.address !== null && sameAddress(row, address))
        return { view: await claimView(trx, network, row), created: false };
      const now = clock.now();
      if (row.status !== 'awaiting_address' || row.expires_at <= now.toISOString())
        throw new AppError(
          'refund_not_claimable',
          `This refund is ${row.status === 'awaiting_address' ? 'expired' : row.status}`,
        );
      if (await isOwnAddress(trx, address))
        throw new AppError('refund_address_not_allowed', 'This address belongs to the payment gateway itself');
      if (await findPayoutByReference(trx, row.merchant_id, `${REFUND_REFERENCE}${row.id}`)) throw referenceTaken(row);
      const payout = await makePayout(trx, clock, row, address, now);
      const next = await moveRefundTo(trx, clock, row, 'requested', { address, payout_id: payout.id });
      return { view: await claimView(trx, network, next), created: true };
    });
  } catch (e) {
    // Another process gave an address first (its payout holds the reference): answer as to a repeat.
    // No address on the refund: the merchant's own payout took the reference meanwhile.
    if (!isUniqueViolation(e, 'payouts', ['merchant_id', 'reference'])) throw e;
    const row = await findRefund(db, id.toLowerCase(), null);
    if (!row) throw e;
    if (row.address === null) throw referenceTaken(row);
    sameAddress(row, address);
    return { view: await claimView(db, network, row), created: false };
  }
}

/**
 * Payout creation and reads (`POST /v1/payouts`, `GET /v1/payouts/{id}`).
 *
 * Order of checks when several fail (after the schema; docs/adr/0019-payout-requests.md):
 *   1. replay by reference (needs only the stored payout): the amount is read first at the
 *      requested asset's decimals (the payout's for its own asset, else the catalog's; malformed →
 *      400 at body.amount); then same asset, amount and address → 200 the existing payout, a
 *      different asset, amount or address → 409 reference_conflict
 *   2. asset unknown to the catalog                → 422 asset_not_payable
 *   3. amount format / decimals / zero / too large → 400 validation_failed at body.amount
 *   4. asset receive-only or payouts locked off    → 422 asset_not_payable
 *   5. halted for the asset or every asset         → 503 payouts_halted
 *   6. operator switched payouts off for the asset → 422 asset_payouts_disabled
 *   7. address absent from the whitelist, or in its delay → 422 address_not_whitelisted
 *   8. amount + fee above the available balance    → 422 insufficient_balance
 *   then review (never an error) and the insert.
 * The replay (1) comes before every refusal, so a client retrying a payout it already created gets
 * it back whatever changed since (halt, switch, balance). The whitelist (7) comes before anything
 * that depends on the amount (8), so its answer never depends on the amount.
 *
 * A merchant that is not approved may still create payouts: the spec refuses only invoices and
 * addresses to it, and payouts only spend a balance the ledger already holds (a rejected merchant
 * must be able to withdraw what it has). A disabled merchant is stopped at authentication (403).
 *
 * Idempotency under concurrency: lookup, checks, reservation, insert and event run in one
 * IMMEDIATE write transaction, so identical concurrent requests are serialised and all but the
 * first find its payout; UNIQUE (merchant_id, reference) backs this up across processes.
 */
import { randomUUID } from 'node:crypto';
import type { AssetCatalog, CatalogAsset } from '../assets/catalog.js';
import type { Clock } from '../clock.js';
import { isUniqueViolation, writeTx, type Db, type Tx } from '../db/database.js';
import { AppError, validationFailed } from '../errors.js';
import { payoutFeeAt, payoutFeeFor } from '../fees/payout.js';
import { post } from '../ledger/service.js';
import type { MerchantRow } from '../merchants/store.js';
import { AmountError, parseAmount } from '../money.js';
import { recordEvent } from '../webhooks/outbox.js';
import { assertWhitelisted } from '../whitelist/service.js';
import { assertPayoutAsset, assertPayoutsSwitchedOn } from './assets.js';
import { assertRequestsNotHalted } from './halts.js';
import { payoutLimits } from './limits.js';
import { reviewReasons } from './review.js';
import type { CreatePayoutBody, PayoutView } from './schema.js';
import { holdOfNewPayout, type TransferKey } from '../restore/payout-matching.js';
import { HELD_DURING_READING, readingPending } from '../restore/chain-reading.js';
import { findPayout, findPayoutByReference, insertPayout, NOT_SIGNED, type PayoutRow } from './store.js';
import { payoutView } from './view.js';
import { syncPayoutHold } from '../exceptions/payouts.js';

export const NETWORK = 'tron';

export interface PayoutDeps {
  db: Db;
  clock: Clock;
  catalog: AssetCatalog;
}

export interface CreateResult {
  payout: PayoutView;
  /** true → 202 (new), false → 200 (the existing payout of this reference). */
  created: boolean;
}

interface Request {
  body: CreatePayoutBody;
  asset: CatalogAsset;
  amount: bigint;
}

/**
 * The requested amount read at the requested asset's decimals, before the replay: a malformed
 * amount is a validation error (400), which comes before the replay
 * (docs/adr/0007-http-check-order.md), whether or not the asset is the existing payout's. Why:
 * otherwise an amount like "abc", "0" or one finer than the asset's base unit would be answered
 * 409 reference_conflict when the asset differed, and 400 when it matched.
 * The asset's decimals come from the stored payout (same asset: answered even if it left the
 * catalog) or the catalog; an asset known to neither is only a difference (409), as the amount of
 * an unknown asset cannot be read (the order of a new request: asset_not_payable before the amount).
 */
function requestedAmount(existing: PayoutRow, body: CreatePayoutBody, catalog: AssetCatalog): bigint | null {
  const asset = catalog.get(body.asset);
  const decimals = body.asset === existing.asset ? existing.decimals : asset?.decimals;
  if (decimals === undefined) return null;
  try {
    return parseAmount(body.amount, decimals, asset?.maxUnits);
  } catch (e) {
    throw validationFailed('body.amount', (e as AmountError).message);
  }
}

/**
 * Rules 1/2: same asset, amount and address → the existing payout; else reference_conflict. It
 * needs only the stored payout, so a retry is answered even if the catalog changed since. Amounts
 * compare as values at the payout's own decimals: "10" and "10.0" are the same amount.
 */
function replay(existing: PayoutRow, body: CreatePayoutBody, catalog: AssetCatalog): CreateResult {
  const amount = requestedAmount(existing, body, catalog);
  const differs: string[] = [];
  if (existing.asset !== body.asset) differs.push('asset');
  else if (amount !== BigInt(existing.amount)) differs.push('amount');
  if (existing.to_address !== body.to_address) differs.push('to_address');
  if (differs.length > 0) {
    throw new AppError(
      'reference_conflict',
      `A payout with this reference exists with a different ${differs.join(' and ')}`,
    );
  }
  return { payout: payoutView(existing), created: false };
}

export function isReferenceConflict(e: unknown): boolean {
  return isUniqueViolation(e, 'payouts', ['merchant_id', 'reference']);
}

export async function createPayout(
  deps: PayoutDeps,
  merchant: MerchantRow,
  body: CreatePayoutBody,
): Promise<CreateResult> {
  // Replays are the common retry: answer them first, without the write lock (the catalog only
  // reads the requested amount; a payout whose asset left it is still answered).
  const seen = await findPayoutByReference(deps.db, merchant.id, body.reference);
  if (seen) return replay(seen, body, deps.catalog);

  const asset = deps.catalog.get(body.asset);
  if (!asset)
    throw new AppError('asset_not_payable', `The service makes no payouts in ${body.asset}: it is not in the catalog`);
  let amount: bigint;
  try {
    amount = parseAmount(body.amount, asset.decimals, asset.maxUnits);
  } catch (e) {
    throw validationFailed('body.amount', (e as AmountError).message);
  }
  const req: Request = { body, asset, amount };

  try {
    return await writeTx(deps.db, async (trx) => {
      const existing = await findPayoutByReference(trx, merchant.id, body.reference);
      if (existing) return replay(existing, body, deps.catalog);
      return { payout: await insertNew(trx, deps, merchant, req), created: true };
    });
  } catch (e) {
    // Another process won the race between our lookup and insert: its payout is the answer.
    if (!isReferenceConflict(e)) throw e;
    const winner = await findPayoutByReference(deps.db, merchant.id, body.reference);
    if (!winner) throw e;
    return replay(winner, body, deps.catalog);
  }
}

/**
 * A request the restore lost and the merchant sent again may have been paid already: while the
 * chain since the backup is read, a new payout is held and matched against it too; afterwards, one
 * that matches a transfer out paygate did not sign is held by that transfer.
 */
async function holdOfRequest(trx: Tx, key: TransferKey): Promise<Pick<PayoutRow, 'hold_reason' | 'hold_tx_hash'>> {
  if (await readingPending(trx)) return { hold_reason: HELD_DURING_READING, hold_tx_hash: null };
  return (await holdOfNewPayout(trx, key)) ?? { hold_reason: null, hold_tx_hash: null };
}

/** Checks 4–8, review, then payout row + reservation + event, all in the caller's transaction. */
async function insertNew(trx: Tx, deps: PayoutDeps, merchant: MerchantRow, req: Request): Promise<PayoutView> {
  const { body, amount } = req;
  const asset = assertPayoutAsset(deps.catalog, body.asset);
  await assertRequestsNotHalted(trx, asset.code);
  await assertPayoutsSwitchedOn(trx, asset);
  const now = deps.clock.now();
  const entry = await assertWhitelisted(trx, merchant.id, asset.code, body.to_address, now);

  const at = now.toISOString();
  const feeRate = await payoutFeeAt(trx, asset.code, at);
  const fee = payoutFeeFor(amount, feeRate);
  const reasons = await reviewReasons(trx, {
    merchantId: merchant.id,
    asset: asset.code,
    decimals: asset.decimals,
    toAddress: body.to_address,
    whitelistedAt: entry.created_at,
    amount,
    now,
    limits: await payoutLimits(trx, merchant.id),
  });
  const row: PayoutRow = {
    id: randomUUID(),
    merchant_id: merchant.id,
    reference: body.reference,
    status: reasons.length > 0 ? 'pending_review' : 'approved',
    asset: asset.code,
    network: NETWORK,
    decimals: asset.decimals,
    to_address: body.to_address,
    amount: amount.toString(),
    fee_amount: fee.toString(),
    fee_charged: '0',
    fee_schedule_id: feeRate.scheduleId,
    review_reasons: JSON.stringify(reasons),
    tx_hash: null,
    reviewed_by: null,
    reviewed_at: null,
    reject_reason: null,
    ...NOT_SIGNED,
    ...(await holdOfRequest(trx, { asset: asset.code, to_address: body.to_address, amount: amount.toString() })),
    created_at: at,
    updated_at: at,
  };
  await insertPayout(trx, row);
  await syncPayoutHold(trx, deps.clock, row);
  // Throws insufficient_balance (and so rolls the insert back) when amount + fee > available.
  await post(trx, deps.clock, {
    merchantId: merchant.id,
    asset: asset.code,
    kind: 'reserve',
    amount: amount + fee,
    payoutId: row.id,
    actor: `merchant:${merchant.id}`,
  });
  const view = payoutView(row);
  await recordEvent(trx, deps.clock, {
    merchantId: merchant.id,
    type: `payout.${row.status}`,
    subjectId: row.id,
    data: view,
    key: `payout:${row.id}:${row.status}`,
  });
  return view;
}

/** GET /v1/payouts/{id}: another merchant's payout is as absent as a missing one. */
export async function getPayout(deps: Pick<PayoutDeps, 'db'>, merchantId: string, id: string): Promise<PayoutView> {
  const row = await findPayout(deps.db, merchantId, id);
  if (!row) throw new AppError('payout_not_found', 'Payout not found');
  return payoutView(row);
}

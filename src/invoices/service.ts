/**
 * Invoice creation and reads. Check order (docs/adr/0014-invoice-creation-order-and-replay.md):
 * schema → asset known → amount format → idempotent replay by order_id → business rules. The
 * replay runs before the business rules, so a repeat of an existing order_id returns its invoice
 * even when the merchant is no longer approved, the asset is switched off or the legacy fee
 * setting applies.
 *
 * Idempotency under concurrency: a lookup answers the replays, then the checks and the insert run
 * in one IMMEDIATE write transaction (or one savepoint of a group commit, see db/group-commit.ts),
 * and UNIQUE (merchant_id, order_id) decides a race, in one process or across several: the
 * request that loses it finds the winner's invoice.
 */
import type { DepositAddressAllocator, ReservedAddress } from '../addresses/allocator.js';
import { assertApproved, userAddress } from '../addresses/service.js';
import { findUserAddress } from '../addresses/store.js';
import type { AssetCatalog, CatalogAsset } from '../assets/catalog.js';
import { assertReceivable } from '../assets/service.js';
import type { Clock } from '../clock.js';
import { isOrderSpaceConflict, isUniqueViolation, writeTx, type Db, type Executor, type Tx } from '../db/database.js';
import { uuidv7 } from '../db/ids.js';
import type { GroupCommit } from '../db/group-commit.js';
import { AppError, validationFailed } from '../errors.js';
import { invoiceAmounts, invoiceFeesAt } from '../fees/service.js';
import type { MerchantRow } from '../merchants/store.js';
import { AmountError, formatAmount, parseAmount } from '../money.js';
import { recordEvent } from '../webhooks/outbox.js';
import { assertRedirectAllowed } from './redirect.js';
import type { CreateInvoiceBody, InvoiceView } from './schema.js';
import { findInvoice, findInvoiceByOrder, insertInvoice, type InvoiceRow } from './store.js';
import { invoiceView } from './view.js';
import { liveDepositsOfInvoice } from '../deposits/store.js';
import { liveDepositViews } from '../deposits/view.js';

export const NETWORK = 'tron';

export interface InvoiceDeps {
  db: Db;
  clock: Clock;
  catalog: AssetCatalog;
  allocator: DepositAddressAllocator;
  /** Group commit of creations; without it each creation is its own transaction. */
  groupCommit?: GroupCommit;
}

export interface CreateResult {
  invoice: InvoiceView;
  /** true → 201 (new), false → 200 (the existing invoice of this order_id). */
  created: boolean;
}

interface Request {
  body: CreateInvoiceBody;
  amount: bigint;
  externalUserId: string | null;
}

/** The replay: same amount, asset and user → the existing invoice; otherwise order_id_conflict. */
async function replay(db: Executor, existing: InvoiceRow, req: Request): Promise<CreateResult> {
  if (existing.checkout_url !== null) throw pageOrderConflict();
  const differs: string[] = [];
  if (existing.asset !== req.body.asset) differs.push('asset');
  else if (BigInt(existing.amount_requested) !== req.amount) differs.push('amount');
  if (existing.external_user_id !== req.externalUserId) differs.push('external_user_id');
  if (differs.length > 0) {
    throw new AppError(
      'order_id_conflict',
      `An invoice with this order_id exists with a different ${differs.join(' and ')}`,
    );
  }
  // The invoice as GET /v1/invoices/{id} shows it, deposits included: a repeat (a client's retry
  // after a timeout) answered `deposits: []` beside a non-zero amount_received.
  return { invoice: await currentView(db, existing), created: false };
}

/** The order id is a page invoice's (one order-id space per merchant, docs/adr/0063-page-invoices.md). */
export function pageOrderConflict(): AppError {
  return new AppError('order_id_conflict', 'This order_id belongs to an invoice of the payment page');
}

const ROW_LOCKS = { rowLocks: true };

function isUserAddressConflict(e: unknown): boolean {
  return isUniqueViolation(e, 'deposit_addresses', ['merchant_id', 'external_user_id']);
}

function isOrderConflict(e: unknown): boolean {
  return isUniqueViolation(e, 'invoices', ['merchant_id', 'order_id']);
}

export async function createInvoice(
  deps: InvoiceDeps,
  merchant: MerchantRow,
  body: CreateInvoiceBody,
): Promise<CreateResult> {
  const asset = deps.catalog.get(body.asset);
  if (!asset) throw new AppError('asset_not_supported', `Asset ${body.asset} is not accepted for payment`);
  let amount: bigint;
  try {
    amount = parseAmount(body.amount, asset.decimals, asset.maxUnits);
  } catch (e) {
    throw validationFailed('body.amount', (e as AmountError).message);
  }
  const req: Request = { body, amount, externalUserId: body.external_user_id ?? null };

  // Replays are common (client retries): answer them without taking the write lock.
  const seen = await findInvoiceByOrder(deps.db, merchant.id, body.order_id);
  if (seen) return replay(deps.db, seen, req);
  assertMayInvoice(merchant, req);
  // Derived before the transaction takes its locks (allocator.ts).
  const address = await reserveAddress(deps, merchant, req.externalUserId);

  // No second lookup of the order id in the transaction: the lookup above answers the replays,
  // and a creation that raced another of its order id since then fails on UNIQUE (merchant_id,
  // order_id) below, its writes rolled back, and answers the winner's invoice. The winner has
  // committed by then: on SQLite it ran before it in the same group (whose COMMIT comes before
  // any unit hears its outcome) or in an earlier one; on PostgreSQL the insert waits for it.
  const unit = async (trx: Tx): Promise<CreateResult> => ({
    invoice: await insertNew(trx, deps, merchant, req, address),
    created: true,
  });
  // Unique constraints decide every race here (the order id, a user's permanent address) and the
  // merchant's event number is an atomic update: on PostgreSQL a merchant's creations queue on it.
  const run = () => (deps.groupCommit ? deps.groupCommit.run(unit, ROW_LOCKS) : writeTx(deps.db, unit, ROW_LOCKS));
  try {
    try {
      return await run();
    } catch (e) {
      // Another creation gave the user a permanent address meanwhile: run again, it finds it.
      if (!isUserAddressConflict(e)) throw e;
      return await run();
    }
  } catch (e) {
    if (isOrderSpaceConflict(e)) throw pageOrderConflict();
    // Another process won the race between our lookup and insert: its invoice is the answer.
    if (!isOrderConflict(e)) throw e;
    const winner = await findInvoiceByOrder(deps.db, merchant.id, body.order_id);
    if (!winner) throw e;
    return replay(deps.db, winner, req);
  }
}

/** The rules a creation must pass before an address is reserved for it: the merchant's alone. */
function assertMayInvoice(merchant: MerchantRow, req: Request): void {
  assertApproved(merchant);
  if (merchant.legacy_network_fee_payer === 'customer') {
    throw new AppError(
      'network_fee_quote_unavailable',
      'The project keeps the legacy setting that the customer pays the network fee, which an invoice does not have; no invoice was created',
    );
  }
  if (merchant.address_mode === 'per_user' && req.externalUserId === null) {
    throw new AppError('address_mode_mismatch', 'A per_user project must send external_user_id with every invoice');
  }
}

/**
 * The deposit address a new invoice takes, reserved before its transaction; null when the user
 * already has a permanent address (a per_user merchant), which the transaction reads again.
 */
export async function reserveAddress(
  deps: Pick<InvoiceDeps, 'db' | 'allocator' | 'groupCommit'>,
  merchant: MerchantRow,
  externalUserId: string | null,
): Promise<ReservedAddress | null> {
  if (merchant.address_mode === 'per_user' && externalUserId !== null) {
    if (await findUserAddress(deps.db, merchant.id, externalUserId)) return null;
  }
  return deps.allocator.reserve(deps.db, deps.groupCommit);
}

/** The business rules, then the insert with its address and its `invoice.created` event. */
async function insertNew(
  trx: Tx,
  deps: InvoiceDeps,
  merchant: MerchantRow,
  req: Request,
  address: ReservedAddress | null,
): Promise<InvoiceView> {
  const { body, amount } = req;
  const asset = await assertReceivable(trx, deps.catalog, merchant.id, body.asset);
  if (amount < asset.minimumDeposit) {
    throw new AppError(
      'amount_below_minimum',
      `The minimum deposit of ${asset.code} is ${formatAmount(asset.minimumDeposit, asset.decimals)}`,
    );
  }
  assertRedirectAllowed('return_url', body.return_url, merchant);
  assertRedirectAllowed('cancel_url', body.cancel_url, merchant);

  const now = deps.clock.now();
  return openInvoice(trx, deps, merchant, {
    id: uuidv7(),
    orderId: body.order_id,
    asset,
    amount,
    externalUserId: req.externalUserId,
    returnUrl: body.return_url ?? null,
    cancelUrl: body.cancel_url ?? null,
    checkoutUrl: null,
    expiresAt: new Date(now.getTime() + body.expires_in * 1000).toISOString(),
    address,
  });
}

/** What an invoice is opened with, once its rules have passed (/v1's creation, a page invoice's choice). */
export interface InvoiceTerms {
  id: string;
  orderId: string;
  asset: CatalogAsset;
  /** The merchant's amount in base units (amount_requested). */
  amount: bigint;
  externalUserId: string | null;
  returnUrl: string | null;
  cancelUrl: string | null;
  checkoutUrl: string | null;
  expiresAt: string;
  /** Its deposit address, reserved before the transaction (reserveAddress). */
  address: ReservedAddress | null;
}

/**
 * The fees in force now for `amount` of `asset`: amount_below_minimum when the merchant would be
 * credited nothing (or less than nothing) because it pays a fee as large as the amount.
 */
export async function feesFor(db: Executor, merchantId: string, asset: CatalogAsset, amount: bigint, at: string) {
  const { service, fixed } = await invoiceFeesAt(db, merchantId, asset.code, at);
  const fees = invoiceAmounts(amount, service, fixed);
  if (fees.payer === 'merchant' && fees.fee >= amount) {
    throw new AppError(
      'amount_below_minimum',
      `The amount does not cover the service fee of ${formatAmount(fees.fee, asset.decimals)} ${asset.code}`,
    );
  }
  return fees;
}

/**
 * Opens an invoice: its fees, its deposit address (the user's permanent one for a per_user
 * merchant, else a new one), the row and its `invoice.created` event, in the caller's transaction.
 */
export async function openInvoice(
  trx: Tx,
  deps: Pick<InvoiceDeps, 'clock' | 'allocator'>,
  merchant: MerchantRow,
  terms: InvoiceTerms,
): Promise<InvoiceView> {
  const { asset, amount } = terms;
  const at = deps.clock.now().toISOString();
  const fees = await feesFor(trx, merchant.id, asset, amount, at);
  const address =
    merchant.address_mode === 'per_user' && terms.externalUserId !== null
      ? await userAddress(trx, deps.allocator, merchant.id, terms.externalUserId, at, terms.address)
      : await deps.allocator.allocate(trx, reservedFor(terms), merchant.id, null, at);

  const row: InvoiceRow = {
    id: terms.id,
    merchant_id: merchant.id,
    order_id: terms.orderId,
    status: 'created',
    asset: asset.code,
    network: NETWORK,
    decimals: asset.decimals,
    address: address.address,
    address_index: address.derivation_index,
    external_user_id: terms.externalUserId,
    amount_requested: amount.toString(),
    amount_expected: fees.expected.toString(),
    amount_received: '0',
    amount_credited: '0',
    service_fee_payer: fees.payer,
    service_fee_percent: fees.percent,
    service_fee_fixed: fees.fixed.toString(),
    service_fee_amount: fees.fee.toString(),
    return_url: terms.returnUrl,
    cancel_url: terms.cancelUrl,
    checkout_url: terms.checkoutUrl,
    expires_at: terms.expiresAt,
    created_at: at,
    updated_at: at,
  };
  await insertInvoice(trx, row);
  const view = invoiceView(row);
  await recordEvent(trx, deps.clock, {
    merchantId: merchant.id,
    type: 'invoice.created',
    subjectId: row.id,
    data: view,
  });
  return view;
}

function reservedFor(terms: InvoiceTerms): ReservedAddress {
  if (!terms.address) throw new Error('no deposit address was reserved for a new invoice');
  return terms.address;
}

/** GET /v1/invoices/{id}: another merchant's invoice is as absent as a missing one. */
export async function getInvoice(deps: Pick<InvoiceDeps, 'db'>, merchantId: string, id: string): Promise<InvoiceView> {
  const row = await findInvoice(deps.db, merchantId, id);
  if (!row) throw new AppError('invoice_not_found', 'Invoice not found');
  return currentView(deps.db, row);
}

/** The Invoice object of a stored row with its live deposits (GET, and the replay of a creation). */
async function currentView(db: Executor, row: InvoiceRow): Promise<InvoiceView> {
  // The watcher writes an invoice's status in the transaction that changes its deposits, and
  // derives `created` only when none is live in time (a late one means the invoice expired:
  // lifecycle.ts), so a created invoice, the one merchants poll, shows none without a second read.
  if (row.status === 'created') return invoiceView(row, []);
  return invoiceView(row, liveDepositViews(await liveDepositsOfInvoice(db, row.id)));
}

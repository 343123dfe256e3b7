/**
 * Creating page invoices (cabinet, console, `paygate invoice create`) and the merchant's views of
 * them. Check order, as /v1's (docs/adr/0014-invoice-creation-order-and-replay.md): schema → price
 * format and listed assets known → idempotent replay by order_id → business rules. The order-id
 * space is one per merchant with /v1 invoices (docs/adr/0063-page-invoices.md), enforced by the
 * database (migration 0053); the lookups here only give the clear answer first.
 */
import type { DepositAddressAllocator } from '../addresses/allocator.js';
import { assertApproved } from '../addresses/service.js';
import type { AssetCatalog } from '../assets/catalog.js';
import { recordAudit } from '../audit/store.js';
import type { Clock } from '../clock.js';
import type { TronNetwork } from '../config.js';
import { isOrderSpaceConflict, isUniqueViolation, writeTx, type Db, type Executor, type Tx } from '../db/database.js';
import { uuidv7 } from '../db/ids.js';
import { AppError, validationFailed } from '../errors.js';
import { hasBidiControl } from '../http/schemas.js';
import { assertRedirectAllowed } from '../invoices/redirect.js';
import { findInvoice, findInvoiceByOrder, type InvoiceRow } from '../invoices/store.js';
import { merchantEnabled } from '../merchants/switches.js';
import type { MerchantRow } from '../merchants/store.js';
import { AmountError } from '../money.js';
import { inCatalogOrder, offersFor } from './offer.js';
import { parsePrice, type Price } from './price.js';
import type { CreatePageInvoiceBody, PageInvoiceView } from './schema.js';
import { findPageInvoiceByOrder, insertPageInvoice, type PageInvoiceRow } from './store.js';

export interface PageDeps {
  db: Db;
  clock: Clock;
  catalog: AssetCatalog;
  allocator: DepositAddressAllocator;
  /** Where customers reach the payment page (PAY_PUBLIC_URL or its listener's address). */
  payUrl: () => string;
  /** PAY_MIN_TIME_TO_PAY: the least time left to pay for a choice to be taken. */
  minTimeToPayMs: number;
  /** The chain watched: receipts and refunds link transactions to its explorer (none on the devnet). */
  network: TronNetwork;
}

/** What creating a page invoice needs (no address is allocated before the choice). */
export type CreateDeps = Pick<PageDeps, 'db' | 'clock' | 'catalog' | 'payUrl'>;

export interface PageCreateResult {
  invoice: PageInvoiceView;
  /** true → 201 (new), false → 200 (the existing page invoice of this order_id). */
  created: boolean;
}

/** The status of a page invoice: its invoice's once chosen; before, created until the term, then expired. */
export function pageStatus(row: PageInvoiceRow, invoice: InvoiceRow | undefined, now: Date): InvoiceRow['status'] {
  if (invoice) return invoice.status;
  return now.getTime() >= Date.parse(row.expires_at) ? 'expired' : 'created';
}

export function pageInvoiceView(row: PageInvoiceRow, invoice: InvoiceRow | undefined, now: Date): PageInvoiceView {
  return {
    invoice_id: row.id,
    order_id: row.order_id,
    status: pageStatus(row, invoice, now),
    price: row.price,
    price_currency: 'USD',
    currencies: JSON.parse(row.currencies) as string[],
    asset: row.asset,
    checkout_url: row.checkout_url,
    description: row.description,
    expires_at: row.expires_at,
    created_at: row.created_at,
  };
}

interface Terms {
  price: Price;
  /** The listed codes, sorted, as JSON; null when none were listed. */
  requested: string | null;
  externalUserId: string | null;
}

function orderConflict(what: string): AppError {
  return new AppError('order_id_conflict', `An invoice with this order_id exists ${what}`);
}

/** The same order id: same price, list and user → the existing page invoice; else order_id_conflict. */
async function replay(
  db: Executor,
  deps: CreateDeps,
  existing: PageInvoiceRow,
  terms: Terms,
): Promise<PageCreateResult> {
  const differs: string[] = [];
  if (existing.price !== terms.price.text) differs.push('price');
  if (existing.currencies_requested !== terms.requested) differs.push('currencies');
  if (existing.external_user_id !== terms.externalUserId) differs.push('external_user_id');
  if (differs.length > 0) throw orderConflict(`with a different ${differs.join(' and ')}`);
  const invoice = existing.asset === null ? undefined : await findInvoice(db, existing.merchant_id, existing.id);
  return { invoice: pageInvoiceView(existing, invoice, deps.clock.now()), created: false };
}

async function lookUp(db: Executor, deps: CreateDeps, merchantId: string, orderId: string, terms: Terms) {
  const page = await findPageInvoiceByOrder(db, merchantId, orderId);
  if (page) return replay(db, deps, page, terms);
  if (await findInvoiceByOrder(db, merchantId, orderId)) throw orderConflict('through the merchant API');
  return null;
}

const ROW_LOCKS = { rowLocks: true };

export async function createPageInvoice(
  deps: CreateDeps,
  merchant: MerchantRow,
  body: CreatePageInvoiceBody,
  actor: string,
): Promise<PageCreateResult> {
  let price: Price;
  try {
    price = parsePrice(body.price);
  } catch (e) {
    throw validationFailed('body.price', (e as AmountError).message);
  }
  // The route's schema refuses it first; this holds for every other caller (the CLI, the demo).
  if (body.description !== undefined && hasBidiControl(body.description))
    throw validationFailed('body.description', 'must not hold bidirectional control characters');
  const listed = body.currencies ?? null;
  for (const code of listed ?? [])
    if (!deps.catalog.get(code)) throw new AppError('asset_not_supported', `Asset ${code} is not accepted for payment`);
  const terms: Terms = {
    price,
    requested: listed === null ? null : JSON.stringify([...listed].sort()),
    externalUserId: body.external_user_id ?? null,
  };
  const seen = await lookUp(deps.db, deps, merchant.id, body.order_id, terms);
  if (seen) return seen;
  try {
    return await writeTx(
      deps.db,
      async (trx) =>
        (await lookUp(trx, deps, merchant.id, body.order_id, terms)) ?? {
          invoice: await insertNew(trx, deps, merchant, body, terms, actor),
          created: true,
        },
      ROW_LOCKS,
    );
  } catch (e) {
    if (isOrderSpaceConflict(e)) throw orderConflict('through the merchant API');
    // Another request made this order id's page invoice between the lookup and the insert.
    if (!isUniqueViolation(e, 'page_invoices', ['merchant_id', 'order_id'])) throw e;
    const winner = await lookUp(deps.db, deps, merchant.id, body.order_id, terms);
    if (!winner) throw e;
    return winner;
  }
}

/** The business rules, then the insert (no address, no event: those come with the customer's choice). */
async function insertNew(
  trx: Tx,
  deps: CreateDeps,
  merchant: MerchantRow,
  body: CreatePageInvoiceBody,
  terms: Terms,
  actor: string,
): Promise<PageInvoiceView> {
  assertApproved(merchant);
  if (!merchantEnabled(merchant)) throw new AppError('merchant_disabled', 'The merchant is disabled');
  if (merchant.legacy_network_fee_payer === 'customer') {
    throw new AppError(
      'network_fee_quote_unavailable',
      'The project keeps the legacy setting that the customer pays the network fee, which an invoice does not have; no invoice was created',
    );
  }
  if (merchant.address_mode === 'per_user' && terms.externalUserId === null) {
    throw new AppError('address_mode_mismatch', 'A per_user project must send external_user_id with every invoice');
  }
  const now = deps.clock.now();
  const at = now.toISOString();
  const offers = inCatalogOrder(
    deps.catalog,
    await offersFor(trx, deps.catalog, merchant.id, body.currencies ?? null, terms.price, at),
  );
  assertRedirectAllowed('return_url', body.return_url, merchant);
  assertRedirectAllowed('cancel_url', body.cancel_url, merchant);

  const id = uuidv7();
  const row: PageInvoiceRow = {
    id,
    merchant_id: merchant.id,
    order_id: body.order_id,
    price: terms.price.text,
    currencies: JSON.stringify(offers.map((o) => o.asset.code)),
    currencies_requested: terms.requested,
    description: body.description ?? null,
    external_user_id: terms.externalUserId,
    return_url: body.return_url ?? null,
    cancel_url: body.cancel_url ?? null,
    checkout_url: `${deps.payUrl()}/pay/${id}`,
    expires_at: new Date(now.getTime() + body.expires_in * 1000).toISOString(),
    created_at: at,
    asset: null,
    chosen_at: null,
  };
  await insertPageInvoice(trx, row);
  await recordAudit(trx, deps.clock, {
    actor,
    action: 'invoice.page_create',
    subjectType: 'invoice',
    subjectId: id,
    merchantId: merchant.id,
    details: { order_id: row.order_id, price: row.price, currencies: JSON.parse(row.currencies) as string[] },
  });
  return pageInvoiceView(row, undefined, now);
}

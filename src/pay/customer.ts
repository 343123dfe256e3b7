/**
 * The customer's side of a page invoice (/pay/v1): what the page shows, and the choice of the
 * token, final, which opens the invoice as /v1 would (docs/adr/0063-page-invoices.md). The id is
 * the only credential: an id that is not a page invoice's is invoice_not_found, whoever asks.
 */
import { assertApproved } from '../addresses/service.js';
import { isUniqueViolation, writeTx, type Executor, type Tx } from '../db/database.js';
import { liveDepositsOfInvoice } from '../deposits/store.js';
import { liveDepositViews } from '../deposits/view.js';
import { AppError } from '../errors.js';
import { invoiceAmounts, invoiceFeeAt, serviceFeeAt } from '../fees/service.js';
import { openInvoice } from '../invoices/service.js';
import { findInvoice, type InvoiceRow } from '../invoices/store.js';
import { findMerchant, type MerchantRow } from '../merchants/store.js';
import { merchantEnabled } from '../merchants/switches.js';
import { formatAmount, formatUnits } from '../money.js';
import { offerOf } from './offer.js';
import { parsePrice, priceInAsset } from './price.js';
import type { PayView } from './schema.js';
import { balanceOf, chooseBy, foreignDepositsOf, isPermanentAddress } from './truth.js';
import { pageStatus, type PageDeps } from './service.js';
import { findPageInvoice, recordChoice, type PageInvoiceRow } from './store.js';

function notFound(): AppError {
  return new AppError('invoice_not_found', 'Invoice not found');
}

async function requirePage(db: Executor, id: string): Promise<{ page: PageInvoiceRow; merchant: MerchantRow }> {
  const page = await findPageInvoice(db, id);
  const merchant = page ? await findMerchant(db, page.merchant_id) : undefined;
  if (!page || !merchant) throw notFound();
  return { page, merchant };
}

/** What the customer would pay in each offered token now: the price, plus the service fee when the customer pays it. */
async function offered(db: Executor, deps: PageDeps, page: PageInvoiceRow, at: string) {
  const price = parsePrice(page.price);
  const service = await serviceFeeAt(db, page.merchant_id, at);
  const out: PayView['offered'] = [];
  for (const code of JSON.parse(page.currencies) as string[]) {
    const asset = deps.catalog.get(code);
    const amount = asset ? priceInAsset(price, asset) : null;
    if (!asset || amount === null) continue;
    const fees = invoiceAmounts(amount, service, await invoiceFeeAt(db, code, at));
    out.push({ asset: code, amount: formatAmount(fees.expected, asset.decimals) });
  }
  return out;
}

async function payView(
  db: Executor,
  deps: PageDeps,
  page: PageInvoiceRow,
  merchant: MerchantRow,
  invoice: InvoiceRow | undefined,
): Promise<PayView> {
  const now = deps.clock.now();
  const amount = (units: string | undefined) =>
    invoice && units !== undefined ? formatUnits(units, invoice.decimals) : null;
  const deposits = invoice ? liveDepositViews(await liveDepositsOfInvoice(db, invoice.id)) : [];
  const permanent = invoice ? await isPermanentAddress(db, invoice) : false;
  return {
    invoice_id: page.id,
    merchant_name: merchant.name,
    description: page.description,
    price: page.price,
    price_currency: 'USD',
    offered: await offered(db, deps, page, now.toISOString()),
    status: pageStatus(page, invoice, now),
    asset: invoice?.asset ?? null,
    address: invoice?.address ?? null,
    amount_expected: amount(invoice?.amount_expected),
    amount_received: amount(invoice?.amount_received),
    ...balanceOf(invoice),
    address_permanent: permanent,
    expires_at: page.expires_at,
    choose_by: chooseBy(page, deps.minTimeToPayMs).toISOString(),
    return_url: page.return_url,
    cancel_url: page.cancel_url,
    deposits: deposits.map((d) => ({ tx_hash: d.tx_hash, amount: d.amount, confirmations: d.confirmations })),
    foreign_deposits: invoice ? await foreignDepositsOf(db, invoice, permanent) : [],
  };
}

/** GET /pay/v1/invoices/{invoice_id}. */
export async function getPayView(deps: PageDeps, id: string): Promise<PayView> {
  const { page, merchant } = await requirePage(deps.db, id);
  const invoice = page.asset === null ? undefined : await findInvoice(deps.db, page.merchant_id, page.id);
  return payView(deps.db, deps, page, merchant, invoice);
}

export interface ChoiceResult {
  view: PayView;
  /** true → 201 (this request chose), false → 200 (the same token was chosen before). */
  created: boolean;
}

/** The checks of a choice on a page invoice still without one, then the invoice opened in `trx`. */
async function choose(trx: Tx, deps: PageDeps, page: PageInvoiceRow, merchant: MerchantRow, asset: string) {
  const now = deps.clock.now();
  if (now.getTime() >= Date.parse(page.expires_at))
    throw new AppError('invoice_expired', 'The invoice is past its term; no token can be chosen');
  if (now.getTime() > chooseBy(page, deps.minTimeToPayMs).getTime())
    throw new AppError('invoice_expired', 'Too little time is left to pay this invoice; no token can be chosen');
  if (!(JSON.parse(page.currencies) as string[]).includes(asset))
    throw new AppError('asset_not_offered', `${asset} is not offered for this invoice`);
  assertApproved(merchant);
  if (!merchantEnabled(merchant)) throw new AppError('merchant_disabled', 'The merchant is disabled');
  const offer = await offerOf(trx, deps.catalog, merchant.id, asset, parsePrice(page.price), now.toISOString());
  if (!(await recordChoice(trx, page.id, asset, now.toISOString()))) return false;
  await openInvoice(trx, deps, merchant, {
    id: page.id,
    orderId: page.order_id,
    asset: offer.asset,
    amount: offer.amount,
    externalUserId: page.external_user_id,
    returnUrl: page.return_url,
    cancelUrl: page.cancel_url,
    checkoutUrl: page.checkout_url,
    expiresAt: page.expires_at,
  });
  return true;
}

/** An earlier choice: the same token again is that answer (200), another is asset_already_selected. */
function earlier(page: PageInvoiceRow, asset: string): void {
  if (page.asset !== asset)
    throw new AppError('asset_already_selected', `The invoice is paid in ${page.asset}; the choice is final`);
}

/** POST /pay/v1/invoices/{invoice_id}/asset. */
export async function chooseAsset(deps: PageDeps, id: string, asset: string): Promise<ChoiceResult> {
  const first = await requirePage(deps.db, id);
  if (first.page.asset !== null) {
    earlier(first.page, asset);
    return { view: await getPayView(deps, id), created: false };
  }
  const run = () =>
    writeTx(
      deps.db,
      async (trx) => {
        const { page, merchant } = await requirePage(trx, id);
        if (page.asset !== null) {
          earlier(page, asset);
          return false;
        }
        return choose(trx, deps, page, merchant, asset);
      },
      { rowLocks: true },
    );
  let created: boolean;
  try {
    created = await run();
  } catch (e) {
    // Another creation gave the user a permanent address meanwhile: run again, it finds it.
    if (!isUniqueViolation(e, 'deposit_addresses', ['merchant_id', 'external_user_id'])) throw e;
    created = await run();
  }
  if (!created) {
    // Another request chose between our reads: its answer stands for the same token.
    const { page } = await requirePage(deps.db, id);
    earlier(page, asset);
  }
  return { view: await getPayView(deps, id), created };
}

/**
 * A paid page invoice's receipt (`GET /pay/v1/invoices/{id}/receipt` and the printable page
 * `/pay/{id}/receipt`): who was paid, for what, how much in which token, when, and each
 * transaction with its explorer link. Before the invoice is paid there is no receipt: the id then
 * answers as an unknown one, so a link cannot be mistaken for proof of payment.
 */
import { transactionUrl } from '../chain/explorer.js';
import { liveDepositsOfInvoice } from '../deposits/store.js';
import { AppError } from '../errors.js';
import { findInvoice } from '../invoices/store.js';
import { findMerchant } from '../merchants/store.js';
import { formatUnits } from '../money.js';
import type { ReceiptView } from './schema.js';
import type { PageDeps } from './service.js';
import { findPageInvoice } from './store.js';

/** The statuses in which the customer has paid: the receipt exists from then on. */
export const PAID_STATUSES: ReadonlySet<string> = new Set(['confirmed', 'settled', 'paid_late']);

const notFound = () => new AppError('invoice_not_found', 'No receipt: the invoice is unknown or not paid');

export async function getReceipt(deps: PageDeps, id: string): Promise<ReceiptView> {
  const page = await findPageInvoice(deps.db, id);
  const merchant = page ? await findMerchant(deps.db, page.merchant_id) : undefined;
  const invoice = page?.asset ? await findInvoice(deps.db, page.merchant_id, page.id) : undefined;
  if (!page || !merchant || !invoice || !PAID_STATUSES.has(invoice.status)) throw notFound();
  const deposits = await liveDepositsOfInvoice(deps.db, invoice.id);
  // Paid when the last transaction that counts was made (its block's time), not when it was confirmed.
  const paidAt = deposits.reduce((last, d) => (d.block_time > last ? d.block_time : last), '');
  return {
    invoice_id: page.id,
    merchant_name: merchant.name,
    order_id: page.order_id,
    description: page.description,
    price: page.price,
    price_currency: 'USD',
    status: invoice.status as ReceiptView['status'],
    asset: invoice.asset,
    amount_paid: formatUnits(invoice.amount_received, invoice.decimals),
    paid_at: new Date(paidAt || invoice.updated_at).toISOString(),
    transactions: deposits.map((d) => ({
      tx_hash: d.tx_hash,
      amount: formatUnits(d.amount, d.decimals),
      at: new Date(d.block_time).toISOString(),
      explorer_url: transactionUrl(deps.network, d.tx_hash),
    })),
  };
}

/** Whether the invoice has a receipt (the HTML route answers the not-found page otherwise). */
export async function hasReceipt(deps: PageDeps, id: string): Promise<boolean> {
  const page = await findPageInvoice(deps.db, id);
  if (!page?.asset) return false;
  const invoice = await findInvoice(deps.db, page.merchant_id, page.id);
  return invoice !== undefined && PAID_STATUSES.has(invoice.status);
}

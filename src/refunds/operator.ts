/** The operator's way to an invoice: by id, whatever its merchant (console and CLI). */
import type { Executor } from '../db/database.js';
import { AppError } from '../errors.js';
import type { InvoiceRow } from '../invoices/store.js';

export async function invoiceOfAnyMerchant(db: Executor, id: string): Promise<InvoiceRow> {
  const inv = await db.selectFrom('invoices').selectAll().where('id', '=', id.toLowerCase()).executeTakeFirst();
  if (!inv) throw new AppError('invoice_not_found', 'Invoice not found');
  return inv;
}

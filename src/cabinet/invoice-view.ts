/**
 * An invoice as its owner sees it: the /v1 Invoice object (invoices/view.ts) plus what only the
 * owner needs, each deposit's sender address and the invoice's status history. The history is
 * read from the event outbox: every status an invoice enters is written there, with its time, in
 * the transaction that changes it, and events are never deleted. An invoice older than the outbox
 * has none: its history is its creation and, when it has moved on, its current status at its last
 * change, marked `derived` (docs/adr/0066-cabinet-invoice-history.md).
 */
import type { Executor } from '../db/database.js';
import { liveDepositsOfInvoices, type DepositRow } from '../deposits/store.js';
import { depositView } from '../deposits/view.js';
import { AppError } from '../errors.js';
import type { InvoiceStatus } from '../db/schema.js';
import { findInvoice, type InvoiceRow } from '../invoices/store.js';
import { invoiceView } from '../invoices/view.js';
import { pageTermsOf, withPageTerms } from '../pay/listing.js';
import { INVOICE_STATUSES } from '../webhooks/event-types.js';

export interface StatusStep {
  status: InvoiceStatus;
  at: string;
  /** True when the step comes from the invoice row, not from an event recorded at the change. */
  derived: boolean;
}

const STATUS_OF = new Map<string, InvoiceStatus>(INVOICE_STATUSES.map((s) => [`invoice.${s}`, s]));

/** Invoice events of these invoices in the order they were recorded (events_subject). */
async function statusEvents(db: Executor, ids: string[]) {
  if (ids.length === 0) return [];
  return db
    .selectFrom('events')
    .select(['subject_id', 'type', 'created_at'])
    .where('subject_id', 'in', ids)
    .where('type', 'like', 'invoice.%')
    .orderBy('seq')
    .execute();
}

function history(row: InvoiceRow, recorded: { type: string; created_at: string }[]): StatusStep[] {
  const steps = recorded.flatMap((e) => {
    const status = STATUS_OF.get(e.type);
    return status ? [{ status, at: e.created_at, derived: false }] : [];
  });
  if (steps.length > 0) return steps;
  const created: StatusStep = { status: 'created', at: row.created_at, derived: true };
  return row.status === 'created' ? [created] : [created, { status: row.status, at: row.updated_at, derived: true }];
}

const groupBy = <T>(rows: T[], key: (r: T) => string) => {
  const m = new Map<string, T[]>();
  for (const r of rows) m.set(key(r), [...(m.get(key(r)) ?? []), r]);
  return m;
};

/** The owner's view of a page of invoices: three queries whatever the page's size. */
export async function ownerInvoiceViews(db: Executor, rows: InvoiceRow[]) {
  // As GET /v1/invoices/{id}: an invoice still `created` shows no deposits.
  const withDeposits = rows.filter((r) => r.status !== 'created').map((r) => r.id);
  const deposits = groupBy(await liveDepositsOfInvoices(db, withDeposits), (d: DepositRow) => d.invoice_id as string);
  const events = groupBy(
    await statusEvents(
      db,
      rows.map((r) => r.id),
    ),
    (e) => e.subject_id,
  );
  // Invoices made from a page invoice show its price and description.
  const terms = await pageTermsOf(
    db,
    rows.filter((r) => r.checkout_url !== null).map((r) => r.id),
  );
  return rows.map((r) => {
    const own = r.status === 'created' ? [] : (deposits.get(r.id) ?? []);
    return {
      ...withPageTerms(invoiceView(r), terms.get(r.id)),
      deposits: own.map((d) => ({ ...depositView(d), from_address: d.from_address })),
      status_history: history(r, events.get(r.id) ?? []),
    };
  });
}

/** One invoice of the merchant; another merchant's is invoice_not_found, as an absent one. */
export async function ownerInvoice(db: Executor, merchantId: string, id: string) {
  const row = await findInvoice(db, merchantId, id);
  if (!row) throw new AppError('invoice_not_found', 'Invoice not found');
  return (await ownerInvoiceViews(db, [row]))[0]!;
}

/**
 * Reports (docs/reports.md): invoices, payouts, deposits and the ledger over a half-open UTC
 * period [from, to), optionally of one merchant, as CSV or JSON. `openReport` checks the request
 * first (a bad period or an unknown merchant is refused before any byte is produced) and then
 * hands back the report as an async iterable of text chunks: rows are read in keyset batches and
 * each batch is written before the next is read, so a report of any size holds one batch in
 * memory. The CLI (`paygate report …`) and the consoles' report routes stream the same chunks.
 *
 * The same period gives the same bytes every time as long as its records do not change: rows are
 * ordered by time then id, and nothing in a report depends on when it was made.
 */
import type { AssetCatalog } from '../assets/catalog.js';
import type { Executor } from '../db/database.js';
import { AppError } from '../errors.js';
import { requireMerchant } from '../merchants/service.js';
import { CONTENT_TYPES, tableChunks, type ReportFormat } from './format.js';
import { ledgerChunks } from './ledger.js';
import { parsePeriod, type Period } from './period.js';
import {
  DEPOSIT_COLUMNS,
  depositRecord,
  INVOICE_COLUMNS,
  invoiceRecord,
  PAYOUT_COLUMNS,
  payoutRecord,
} from './rows.js';
import {
  depositBatch,
  fillMerchantNames,
  invoiceBatch,
  invoicesPaid,
  payoutBatch,
  type After,
  type BatchQuery,
} from './store.js';

export type { ReportFormat } from './format.js';
export type { Period } from './period.js';

export const REPORT_KINDS = ['invoices', 'payouts', 'deposits', 'ledger'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];
export const REPORT_FORMATS: readonly ReportFormat[] = ['csv', 'json'];

export interface ReportRequest {
  kind: ReportKind;
  /** A date (`2026-03-01`, midnight UTC) or an ISO 8601 time with its zone; inclusive. */
  from: string;
  /** Same forms; exclusive. */
  to: string;
  /** Only this merchant's records; null or absent: every merchant. */
  merchantId?: string | null;
  format: ReportFormat;
}

export interface ReportDeps {
  /** Where the rows are read: a read connection (`Services.scans` when there is one: long reads). */
  db: Executor;
  catalog: AssetCatalog;
}

export interface ReportOptions {
  /** Rows read per batch (default 1,000). */
  batchSize?: number;
  /** Called after each batch with the number of rows written so far. */
  onProgress?: (rows: number) => void;
}

export interface Report {
  kind: ReportKind;
  period: Period;
  merchantId: string | null;
  format: ReportFormat;
  /** `text/csv; charset=utf-8` or `application/json; charset=utf-8`. */
  contentType: string;
  /** A file name for a download: `paygate-<kind>-<from>-<to>[-<merchant>].<format>`. */
  filename: string;
  /** The report's text, chunk by chunk; iterate it once. */
  chunks: AsyncIterable<string>;
}

export const DEFAULT_BATCH = 1_000;

const compact = (iso: string) =>
  iso
    .replace(/[-:]/g, '')
    .replace(/\.000Z$/, 'Z')
    .replace('.', '');

/**
 * Checks the request and opens the report. Refusals (before any chunk): `invalid_argument` for an
 * unknown kind or format, a malformed `from`/`to` or `from` not before `to`; `merchant_not_found`.
 */
export async function openReport(deps: ReportDeps, req: ReportRequest, opts: ReportOptions = {}): Promise<Report> {
  if (!REPORT_KINDS.includes(req.kind))
    throw new AppError('invalid_argument', `kind must be one of ${REPORT_KINDS.join(', ')}`);
  if (!REPORT_FORMATS.includes(req.format))
    throw new AppError('invalid_argument', `format must be one of ${REPORT_FORMATS.join(', ')}`);
  const period = parsePeriod(req.from, req.to);
  const merchantId = req.merchantId ?? null;
  if (merchantId !== null) await requireMerchant(deps.db, merchantId);
  const batchSize = opts.batchSize ?? DEFAULT_BATCH;
  const progress = opts.onProgress ?? (() => undefined);
  const suffix = merchantId === null ? '' : `-${merchantId}`;
  return {
    kind: req.kind,
    period,
    merchantId,
    format: req.format,
    contentType: CONTENT_TYPES[req.format],
    filename: `paygate-${req.kind}-${compact(period.from)}-${compact(period.to)}${suffix}.${req.format}`,
    chunks:
      req.kind === 'ledger'
        ? ledgerChunks({ ...deps, format: req.format, period, merchantId, batchSize, progress })
        : tableChunks(
            req.format,
            { from: period.from, to: period.to, ...TABLES[req.kind] },
            batches(deps.db, req.kind, { period, merchantId, after: null, limit: batchSize }, progress),
          ),
  };
}

const TABLES = {
  invoices: { name: 'invoices', columns: INVOICE_COLUMNS },
  payouts: { name: 'payouts', columns: PAYOUT_COLUMNS },
  deposits: { name: 'deposits', columns: DEPOSIT_COLUMNS },
} as const;

/** The rows of a table report, batch by batch, in report order. */
async function* batches(
  db: Executor,
  kind: Exclude<ReportKind, 'ledger'>,
  first: BatchQuery,
  progress: (rows: number) => void,
): AsyncIterable<readonly object[]> {
  let after: After | null = null;
  let written = 0;
  const names = new Map<string, string>();
  const nameOf = (id: string) => names.get(id) ?? '';
  for (;;) {
    const q: BatchQuery = { ...first, after };
    let records: object[];
    let last: After | null;
    if (kind === 'invoices') {
      const rows = await invoiceBatch(db, q);
      await fillMerchantNames(
        db,
        rows.map((r) => r.merchant_id),
        names,
      );
      // Only an invoice that received something has live deposits to name.
      const paid = await invoicesPaid(
        db,
        rows.filter((r) => r.amount_received !== '0').map((r) => r.id),
      );
      records = rows.map((r) => invoiceRecord(r, paid.get(r.id), nameOf(r.merchant_id)));
      last = rows.length ? { at: rows[rows.length - 1]!.created_at, id: rows[rows.length - 1]!.id } : null;
    } else if (kind === 'payouts') {
      const rows = await payoutBatch(db, q);
      await fillMerchantNames(
        db,
        rows.map((r) => r.merchant_id),
        names,
      );
      records = rows.map((r) => payoutRecord(r, nameOf(r.merchant_id)));
      last = rows.length ? { at: rows[rows.length - 1]!.created_at, id: rows[rows.length - 1]!.id } : null;
    } else {
      const rows = await depositBatch(db, q);
      await fillMerchantNames(
        db,
        rows.map((r) => r.merchant_id),
        names,
      );
      records = rows.map((r) => depositRecord(r, nameOf(r.merchant_id)));
      last = rows.length ? { at: rows[rows.length - 1]!.block_time, id: rows[rows.length - 1]!.id } : null;
    }
    if (records.length > 0) {
      yield records;
      written += records.length;
      progress(written);
    }
    if (records.length < first.limit || last === null) return;
    after = last;
  }
}

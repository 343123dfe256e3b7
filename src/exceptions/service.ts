/**
 * Listing and resolving exceptions (docs/exceptions.md): the owner sees and resolves the kinds of
 * their merchant's payments; the operator every kind. A resolve is a compare-and-set with its audit
 * entry in one transaction; a second one is 409 invalid_state.
 */
import type { Clock } from '../clock.js';
import { writeTx, type Db, type Executor } from '../db/database.js';
import { recordAudit } from '../audit/store.js';
import type { ExceptionKind } from '../db/tables/exceptions.js';
import { AppError, validationFailed } from '../errors.js';
import { DEFAULT_PAGE_LIMIT, decodeCursor, toPage } from '../http/pagination.js';
import { formatUnits } from '../money.js';
import { findException, listExceptions, resolveException, type ExceptionRow } from './store.js';

/** The kinds an owner sees and resolves; `unattributed` and `payout_held` are the operator's. */
export const OWNER_KINDS: readonly ExceptionKind[] = ['underpaid', 'overpaid', 'paid_late', 'foreign_asset'];

export interface ExceptionView {
  exception_id: string;
  kind: ExceptionKind;
  merchant_id: string | null;
  invoice_id: string | null;
  payout_id: string | null;
  deposit_id: string | null;
  asset: string;
  amount: string;
  created_at: string;
  resolved_at: string | null;
  resolution: { note: string; by: string; refund_id: string | null } | null;
}

export function exceptionView(r: ExceptionRow): ExceptionView {
  return {
    exception_id: r.id,
    kind: r.kind,
    merchant_id: r.merchant_id,
    invoice_id: r.invoice_id,
    payout_id: r.payout_id,
    deposit_id: r.deposit_id,
    asset: r.asset,
    amount: formatUnits(r.amount, r.decimals),
    created_at: r.created_at,
    resolved_at: r.resolved_at,
    resolution:
      r.resolved_at === null
        ? null
        : { note: r.resolution_note ?? '', by: r.resolved_by ?? '', refund_id: r.refund_id },
  };
}

export interface ExceptionQuery {
  merchant_id?: string;
  kind?: ExceptionKind;
  open?: 'true' | 'false';
  limit?: number;
  cursor?: string;
}

/** A page of exceptions, newest first; `kinds` bounds what the caller may see. */
export async function pageExceptions(db: Executor, q: ExceptionQuery, kinds?: readonly ExceptionKind[]) {
  const limit = q.limit ?? DEFAULT_PAGE_LIMIT;
  const rows = await listExceptions(db, {
    ...(q.merchant_id !== undefined ? { merchantId: q.merchant_id.toLowerCase() } : {}),
    ...(q.kind !== undefined ? { kind: q.kind } : {}),
    ...(kinds !== undefined ? { kinds } : {}),
    ...(q.open !== undefined ? { open: q.open === 'true' } : {}),
    limit: limit + 1,
    after: decodeCursor(q.cursor),
  });
  const page = toPage(rows, limit, (r) => ({ at: r.created_at, id: r.id }));
  return { data: page.data.map(exceptionView), next_cursor: page.next_cursor };
}

/** The invoice's exceptions of the owner's kinds, oldest first (the cabinet's invoice view). */
export async function exceptionsOfInvoice(db: Executor, invoiceId: string): Promise<ExceptionView[]> {
  const rows = await listExceptions(db, { invoiceId, kinds: OWNER_KINDS, limit: 100, after: null });
  return rows.reverse().map(exceptionView);
}

export const NOTE_MAX = 500;

function checkedNote(note: string): string {
  const n = note.trim();
  if (n.length < 1 || n.length > NOTE_MAX) throw validationFailed('body.note', `must be 1 to ${NOTE_MAX} characters`);
  return n;
}

export interface ResolveBy {
  /** Who: the owner account's id, the operator token's id or `cli:<user>`. */
  by: string;
  /** The audit log's actor. */
  actor: string;
  /** An owner resolves only their merchant's exceptions of OWNER_KINDS; others answer as absent. */
  merchantId?: string;
}

export async function resolveByPerson(
  db: Db,
  clock: Clock,
  id: string,
  note: string,
  who: ResolveBy,
): Promise<ExceptionView> {
  const text = checkedNote(note);
  return writeTx(db, async (trx) => {
    const row = await findException(trx, id.toLowerCase());
    const visible =
      row && (who.merchantId === undefined || (row.merchant_id === who.merchantId && OWNER_KINDS.includes(row.kind)));
    if (!row || !visible) throw new AppError('exception_not_found', `No exception ${id}`);
    const done = await resolveException(trx, clock, row.id, { note: text, by: who.by });
    await recordAudit(trx, clock, {
      actor: who.actor,
      action: 'exception.resolve',
      subjectType: 'exception',
      subjectId: row.id,
      merchantId: row.merchant_id,
      details: { kind: row.kind, note: text },
    });
    return exceptionView(done);
  });
}

/**
 * The invoice lifecycle (docs/invoices.md) as a function of facts: the invoice's live deposits and
 * how far the chain has been scanned. The status is derived, never accumulated, so a fork that
 * orphans a deposit returns the invoice to the state its remaining deposits justify.
 *
 *   no in-time deposit:   created; once the scan passes expires_at: expired, or paid_late when
 *                         late confirmed deposits reach amount_expected
 *   in-time deposits:     seen; confirmed when in-time confirmed ones reach amount_expected;
 *                         settled when in-time credited (final) ones do
 *   after expires_at:     seen stays seen while in-time deposits still confirming would cover
 *                         it; otherwise underpaid, or paid_late once all confirmed ones reach it
 */
import type { InvoiceStatus } from '../db/schema.js';
import type { DepositRow } from '../deposits/store.js';

export interface LifecycleFacts {
  expected: bigint;
  expiresAt: string;
  /** Live (not orphaned) deposits of the invoice. */
  deposits: Pick<DepositRow, 'amount' | 'late' | 'status' | 'credited_at'>[];
  /** Time of the last block scanned (ISO); null before the first scan. */
  horizon: string | null;
}

const sum = (rows: { amount: string }[]) => rows.reduce((t, r) => t + BigInt(r.amount), 0n);

export function deriveStatus(f: LifecycleFacts): InvoiceStatus {
  const inTime = f.deposits.filter((d) => d.late === 0);
  const confirmed = f.deposits.filter((d) => d.status === 'confirmed');
  const expired = f.horizon !== null && f.horizon > f.expiresAt;
  const paidLate = () => sum(confirmed) >= f.expected;
  if (inTime.length === 0) {
    if (!expired) return 'created';
    return paidLate() ? 'paid_late' : 'expired';
  }
  if (sum(inTime.filter((d) => d.status === 'confirmed')) >= f.expected) {
    return sum(inTime.filter((d) => d.credited_at !== null)) >= f.expected ? 'settled' : 'confirmed';
  }
  if (!expired || sum(inTime) >= f.expected) return 'seen';
  return paidLate() ? 'paid_late' : 'underpaid';
}

/** The state each lifecycle state is entered from when the invoice moves forward (docs/invoices.md). */
const ENTERED_FROM: Partial<Record<InvoiceStatus, InvoiceStatus>> = {
  seen: 'created',
  confirmed: 'seen',
  settled: 'confirmed',
  underpaid: 'seen',
  expired: 'created',
};

/**
 * `paid_late` is entered from `expired` (nothing arrived in time) or from `underpaid` (too little
 * did): which one depends on the invoice's in-time deposits. Without it a catch-up that found a
 * late payment already confirmed reported `paid_late` alone, never `expired`/`underpaid`.
 */
const enteredFrom = (s: InvoiceStatus, inTime: boolean): InvoiceStatus | undefined =>
  s === 'paid_late' ? (inTime ? 'underpaid' : 'expired') : ENTERED_FROM[s];

/**
 * The statuses an invoice passes through from `from` to `to`, in order, ending with `to`: a payment
 * found already confirmed (a catch-up, fast blocks) still reports `seen` before `confirmed`, so a
 * merchant following the events sees every step. A move that is not forward (a fork) is one step.
 * `inTime`: whether the invoice has live in-time deposits (the way into `paid_late`).
 */
export function statusPath(from: InvoiceStatus, to: InvoiceStatus, inTime = false): InvoiceStatus[] {
  const path: InvoiceStatus[] = [to];
  for (let s = enteredFrom(to, inTime); s !== undefined && s !== from; s = enteredFrom(s, inTime)) path.unshift(s);
  return enteredFrom(path[0] as InvoiceStatus, inTime) === from || path.length === 1 ? path : [to];
}

/**
 * The credit of an invoice so far: its credited deposits less the service fee, never below zero
 * (the fee comes out of the first credits). `share` is what one more deposit adds to it.
 */
export function invoiceCredit(creditedDeposits: bigint, fee: bigint): bigint {
  return creditedDeposits > fee ? creditedDeposits - fee : 0n;
}

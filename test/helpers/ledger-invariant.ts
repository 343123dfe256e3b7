/**
 * The ledger-against-deposits invariant as a list of problems (empty = holds), without vitest, so
 * scripts (scripts/soak.ts) check the same rule as the tests (invariants.ts wraps it in expect).
 */
import type { Db } from '../../src/db/database.js';
import { verifyLedger } from '../../src/ledger/service.js';

export interface InvariantOptions {
  /** Also require that every final, confirmed deposit is credited. */
  settled?: boolean;
}

export async function ledgerDepositProblems(db: Db, opts: InvariantOptions = {}): Promise<string[]> {
  const deposits = await db.selectFrom('deposits').selectAll().execute();
  const entries = await db.selectFrom('ledger_entries').selectAll().where('source_ref', 'like', 'deposit:%').execute();
  const invoices = await db.selectFrom('invoices').selectAll().execute();
  const byRef = new Map(deposits.map((d) => [`deposit:${d.tx_hash}:${d.log_index}`, d]));
  const problems: string[] = [];
  if (byRef.size !== deposits.length)
    problems.push(`${deposits.length} deposit rows for ${byRef.size} distinct (tx_hash, log_index)`);
  for (const e of entries) {
    const d = byRef.get(e.source_ref as string);
    if (!d) problems.push(`ledger entry ${e.source_ref} has no deposit`);
    else if (
      e.kind !== 'credit' ||
      e.amount !== d.credited_amount ||
      e.merchant_id !== d.merchant_id ||
      e.asset !== d.asset
    ) {
      problems.push(
        `ledger entry ${e.source_ref} (${e.kind} ${e.amount}) does not match its deposit (credited ${d.credited_amount})`,
      );
    }
  }
  const booked = new Set(entries.map((e) => e.source_ref));
  if (booked.size !== entries.length) {
    const seen = new Set<string | null>();
    for (const e of entries) {
      if (seen.has(e.source_ref)) problems.push(`${e.source_ref} booked more than once`);
      seen.add(e.source_ref);
    }
  }
  for (const d of deposits) {
    const ref = `deposit:${d.tx_hash}:${d.log_index}`;
    if (d.credited_at !== null) {
      if (d.status !== 'confirmed' || d.final !== 1)
        problems.push(`${ref} credited while ${d.status}, final=${d.final}`);
      if (BigInt(d.credited_amount ?? '-1') > 0n && !booked.has(ref))
        problems.push(`${ref} credited ${d.credited_amount} without a ledger entry`);
      if (d.invoice_id === null && BigInt(d.credited_amount ?? '0') + BigInt(d.fee_amount ?? '0') !== BigInt(d.amount))
        problems.push(`${ref} standalone credit + fee != amount`);
    } else {
      if (booked.has(ref)) problems.push(`${ref} booked but not marked credited`);
      if (opts.settled && d.status === 'confirmed' && d.final === 1)
        problems.push(`${ref} is final and confirmed but not credited`);
    }
  }
  for (const inv of invoices) {
    const live = deposits.filter((d) => d.invoice_id === inv.id && d.status !== 'orphaned');
    const received = live.reduce((t, d) => t + BigInt(d.amount), 0n);
    const creditedDeposits = live.filter((d) => d.credited_at !== null).reduce((t, d) => t + BigInt(d.amount), 0n);
    const fee = BigInt(inv.service_fee_amount);
    const expected = creditedDeposits > fee ? creditedDeposits - fee : 0n;
    const bookedForInvoice = live.reduce((t, d) => t + BigInt(d.credited_amount ?? '0'), 0n);
    if (BigInt(inv.amount_received) !== received)
      problems.push(`invoice ${inv.id}: amount_received ${inv.amount_received}, deposits say ${received}`);
    if (BigInt(inv.amount_credited) !== expected)
      problems.push(`invoice ${inv.id}: amount_credited ${inv.amount_credited}, rule says ${expected}`);
    if (bookedForInvoice !== expected)
      problems.push(`invoice ${inv.id}: deposits booked ${bookedForInvoice}, rule says ${expected}`);
  }
  const pairs = await db.selectFrom('ledger_entries').select(['merchant_id', 'asset']).distinct().execute();
  for (const p of pairs) problems.push(...(await verifyLedger(db, p.merchant_id, p.asset)));
  return problems;
}

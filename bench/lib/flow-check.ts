/**
 * The end-of-run checks of bench/flow.ts, so its figures are of a correct run: each invoice
 * settled with exactly its payment received and its payment less the fee credited; each
 * merchant's ledger per asset = the sum of its payments − fees, verified entry by entry; each
 * deposit final and credited once; each invoice's seen, confirmed and settled events received
 * (signature verified) and every delivery marked delivered. Returns the problems found.
 */
import { openDatabase } from '../../src/db/database.js';
import { balance, verifyLedger } from '../../src/ledger/service.js';
import type { WebhookReceiver } from './webhook-receiver.js';

export interface PaidInvoice {
  id: string;
  /** Index of the merchant (its receiver path). */
  merchant: number;
  merchantId: string;
  address: string;
  asset: 'USDT_TRON' | 'TRX_TRON';
  /** What was paid: the invoice's amount_expected, base units. */
  amount: bigint;
  /** The service fee the invoice should carry (merchant pays), base units. */
  fee: bigint;
}

const FLOW_EVENTS = ['invoice.seen', 'invoice.confirmed', 'invoice.settled'];

export async function checkFlow(file: string, invoices: PaidInvoice[], receiver: WebhookReceiver): Promise<string[]> {
  const problems: string[] = [];
  const { db, close } = openDatabase(file);
  try {
    const rows = new Map(
      (
        await db
          .selectFrom('invoices')
          .select(['id', 'status', 'amount_received', 'amount_credited', 'service_fee_amount'])
          .execute()
      ).map((r) => [r.id, r]),
    );
    const expected = new Map<string, bigint>();
    for (const inv of invoices) {
      const r = rows.get(inv.id);
      const credit = inv.amount - inv.fee;
      if (!r) problems.push(`invoice ${inv.id} missing`);
      else if (
        r.status !== 'settled' ||
        BigInt(r.amount_received) !== inv.amount ||
        BigInt(r.amount_credited) !== credit ||
        BigInt(r.service_fee_amount) !== inv.fee
      ) {
        problems.push(
          `invoice ${inv.id}: ${r.status}, received ${r.amount_received}, credited ${r.amount_credited} (paid ${inv.amount}, fee ${inv.fee})`,
        );
      }
      const key = `${inv.merchantId}/${inv.asset}`;
      expected.set(key, (expected.get(key) ?? 0n) + credit);
    }
    for (const [key, want] of expected) {
      const [merchantId, asset] = key.split('/') as [string, string];
      const b = await balance(db, merchantId, asset);
      if (b.available !== want) problems.push(`ledger ${key}: available ${b.available}, payments − fees = ${want}`);
      for (const p of await verifyLedger(db, merchantId, asset)) problems.push(`ledger ${key}: ${p}`);
    }
    const deposits = await db
      .selectFrom('deposits')
      .select(['tx_hash', 'invoice_id', 'credited_at', 'final', 'status'])
      .execute();
    if (deposits.length !== invoices.length)
      problems.push(`${deposits.length} deposits for ${invoices.length} payments`);
    for (const d of deposits) {
      if (d.credited_at === null || d.final !== 1 || d.status !== 'confirmed' || d.invoice_id === null)
        problems.push(`deposit ${d.tx_hash}: ${d.status}, final ${d.final}, credited ${d.credited_at}`);
    }
    const got = new Map<string, string[]>();
    for (const e of receiver.events.values()) got.set(e.subject ?? '-', [...(got.get(e.subject ?? '-') ?? []), e.type]);
    for (const inv of invoices) {
      const types = (got.get(inv.id) ?? []).sort();
      if (types.join() !== [...FLOW_EVENTS].sort().join())
        problems.push(`invoice ${inv.id}: events received ${types.join(', ') || 'none'}`);
    }
    if (receiver.events.size !== invoices.length * FLOW_EVENTS.length)
      problems.push(`${receiver.events.size} events received, ${invoices.length * FLOW_EVENTS.length} expected`);
    if (receiver.stats.badSignatures > 0)
      problems.push(`${receiver.stats.badSignatures} deliveries with a bad signature`);
    const undelivered = await db
      .selectFrom('webhook_deliveries')
      .select(['id', 'status'])
      .where('status', '!=', 'delivered')
      .execute();
    if (undelivered.length > 0) problems.push(`${undelivered.length} webhook deliveries not delivered`);
  } finally {
    await close();
  }
  return problems;
}

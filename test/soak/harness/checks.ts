/**
 * The soak's invariants, each a list of violations (empty = holds), over the database and the
 * facts from the chain and the receiver (facts.ts):
 * - deposits: every successful transfer to a watched address is one live deposit, credited once;
 *   a deposit whose transaction is not in the final chain is orphaned and credited nothing;
 * - payouts: each payout sent at most once; a confirmed one exactly once on chain, a failed or
 *   rejected one never; every payout final;
 * - balances: each merchant's ledger = operator credits + credited deposits − confirmed payouts
 *   (amount + fee), nothing reserved once every payout is final, available ≥ 0;
 * - webhooks: every event of a merchant with an endpoint received (signature verified), in the
 *   merchant's order, and every delivery `delivered`.
 */
import type { Db } from '../../../src/db/database.js';
import { ledgerDepositProblems } from '../../helpers/ledger-invariant.js';
import { ledgerProblems } from '../../payouts/worker-fixture.js';
import type { SoakFacts } from './facts.js';

const FINAL_PAYOUT = ['confirmed', 'failed', 'rejected'];

export async function depositProblems(db: Db, facts: SoakFacts): Promise<string[]> {
  const problems = await ledgerDepositProblems(db, { settled: true });
  const watched = new Set((await db.selectFrom('deposit_addresses').select('address').execute()).map((a) => a.address));
  const deposits = await db.selectFrom('deposits').selectAll().execute();
  const credits = await db
    .selectFrom('ledger_entries')
    .select('source_ref')
    .where('source_ref', 'like', 'deposit:%')
    .execute();
  const creditsOf = (txid: string) =>
    credits.filter((c) => (c.source_ref as string).startsWith(`deposit:${txid}:`)).length;
  const payments = facts.transfers.filter((t) => t.success && watched.has(t.to) && t.from !== facts.hotAddress);
  const onChain = new Set(payments.map((t) => `${t.txid}/${t.to}`));
  for (const t of payments) {
    const live = deposits.filter((d) => d.tx_hash === t.txid && d.address === t.to && d.status !== 'orphaned');
    if (live.length !== 1) {
      problems.push(`payment ${t.txid} (${t.amount} ${t.asset} to ${t.to}) is ${live.length} live deposits`);
      continue;
    }
    const d = live[0]!;
    if (d.amount !== t.amount || d.asset !== t.asset)
      problems.push(`deposit ${d.id}: ${d.amount} ${d.asset}, the chain says ${t.amount} ${t.asset}`);
    if (d.credited_at === null)
      problems.push(
        `deposit ${d.id} (${t.txid}, block ${t.block}) final on chain but not credited (status ${d.status}, final ${d.final})`,
      );
    const want = BigInt(d.credited_amount ?? '0') > 0n ? 1 : 0;
    if (creditsOf(t.txid) !== want)
      problems.push(`payment ${t.txid} credited ${creditsOf(t.txid)} times, expected ${want}`);
  }
  for (const d of deposits) {
    if (onChain.has(`${d.tx_hash}/${d.address}`)) continue;
    if (d.status !== 'orphaned')
      problems.push(`deposit ${d.id} (${d.tx_hash}) is ${d.status} but its transaction is not in the final chain`);
    if (d.credited_at !== null || creditsOf(d.tx_hash) > 0)
      problems.push(`deposit ${d.id} (${d.tx_hash}) is not in the final chain but was credited`);
  }
  return problems;
}

export async function payoutProblems(db: Db, facts: SoakFacts): Promise<string[]> {
  const problems = await ledgerProblems(db);
  const rows = await db.selectFrom('payouts').selectAll().execute();
  const targets = new Set(facts.payoutTargets);
  const sent = facts.transfers.filter((t) => t.from === facts.hotAddress && targets.has(t.to));
  const byTx = new Map(rows.filter((r) => r.tx_hash).map((r) => [r.tx_hash as string, r]));
  for (const t of sent)
    if (!byTx.has(t.txid))
      problems.push(
        `transaction ${t.txid} from the hot wallet (${t.amount} ${t.asset} to ${t.to}) belongs to no payout`,
      );
  for (const r of rows) {
    if (!FINAL_PAYOUT.includes(r.status)) problems.push(`payout ${r.id} still ${r.status} after settling`);
    const mine = sent.filter((t) => t.txid === r.tx_hash);
    const ok = mine.filter((t) => t.success);
    if (ok.length > 1) problems.push(`payout ${r.id} sent ${ok.length} times`);
    if (r.status === 'confirmed') {
      const t = ok[0];
      if (!t) problems.push(`confirmed payout ${r.id} has no successful transfer on chain`);
      else if (t.amount !== r.amount || t.to !== r.to_address || t.asset !== r.asset)
        problems.push(`payout ${r.id}: chain sent ${t.amount} ${t.asset} to ${t.to}`);
    }
    if (r.status === 'failed' && ok.length > 0) problems.push(`failed payout ${r.id} has a successful transfer`);
    if (r.status === 'rejected' && mine.length > 0) problems.push(`rejected payout ${r.id} has a transaction on chain`);
  }
  const confirmed = rows.filter((r) => r.status === 'confirmed').length;
  const succeeded = sent.filter((t) => t.success).length;
  if (succeeded !== confirmed)
    problems.push(`${succeeded} successful payout transfers on chain for ${confirmed} confirmed payouts`);
  return problems;
}

export async function balanceProblems(db: Db): Promise<string[]> {
  const problems: string[] = [];
  const pairs = await db.selectFrom('ledger_entries').select(['merchant_id', 'asset']).distinct().execute();
  for (const { merchant_id: m, asset } of pairs) {
    const entries = await db
      .selectFrom('ledger_entries')
      .selectAll()
      .where('merchant_id', '=', m)
      .where('asset', '=', asset)
      .orderBy('seq')
      .execute();
    const last = entries[entries.length - 1]!;
    const operator = entries
      .filter((e) => e.kind === 'credit' && !(e.source_ref ?? '').startsWith('deposit:'))
      .reduce((s, e) => s + BigInt(e.amount), 0n);
    const deposits = await db
      .selectFrom('deposits')
      .select('credited_amount')
      .where('merchant_id', '=', m)
      .where('asset', '=', asset)
      .where('credited_at', 'is not', null)
      .execute();
    const credited = deposits.reduce((s, d) => s + BigInt(d.credited_amount ?? '0'), 0n);
    const payouts = await db
      .selectFrom('payouts')
      .selectAll()
      .where('merchant_id', '=', m)
      .where('asset', '=', asset)
      .execute();
    const paid = payouts
      .filter((p) => p.status === 'confirmed')
      .reduce((s, p) => s + BigInt(p.amount) + BigInt(p.fee_charged), 0n);
    const held = payouts
      .filter((p) => !FINAL_PAYOUT.includes(p.status))
      .reduce((s, p) => s + BigInt(p.amount) + BigInt(p.fee_amount), 0n);
    const want = operator + credited - paid;
    if (BigInt(last.balance_after) !== want)
      problems.push(`${m} ${asset}: balance ${last.balance_after}, operator credits + deposits − payouts = ${want}`);
    if (BigInt(last.reserved_after) !== held)
      problems.push(`${m} ${asset}: reserved ${last.reserved_after}, open payouts hold ${held}`);
    if (BigInt(last.balance_after) < BigInt(last.reserved_after)) problems.push(`${m} ${asset}: available below zero`);
  }
  return problems;
}

export async function webhookProblems(db: Db, facts: SoakFacts): Promise<string[]> {
  const problems = facts.refusedWebhooks.map((r) => `receiver refused a delivery: ${r}`);
  const withEndpoint = (await db.selectFrom('webhook_endpoints').select('merchant_id').execute()).map(
    (e) => e.merchant_id,
  );
  if (withEndpoint.length === 0) return problems;
  const events = await db
    .selectFrom('events')
    .select(['id', 'merchant_id', 'type', 'merchant_seq'])
    .where('merchant_id', 'in', withEndpoint)
    .execute();
  const deliveries = await db.selectFrom('webhook_deliveries').select(['event_id', 'status', 'merchant_seq']).execute();
  const deliveryOf = new Map(deliveries.map((d) => [d.event_id, d]));
  const got = new Map<string, string>();
  for (const r of facts.received) got.set(r.eventId, r.type);
  for (const e of events) {
    if (!got.has(e.id)) problems.push(`event ${e.id} (${e.type}, merchant ${e.merchant_id}) never received`);
    else if (got.get(e.id) !== e.type)
      problems.push(`event ${e.id} received as ${got.get(e.id)}, recorded as ${e.type}`);
    const d = deliveryOf.get(e.id);
    if (!d) problems.push(`event ${e.id} has no delivery`);
    else if (d.status !== 'delivered') problems.push(`delivery of ${e.id} is ${d.status}`);
  }
  const seqOf = new Map(events.map((e) => [e.id, e.merchant_seq ?? -1]));
  const lastSeq = new Map<string, number>();
  const firstSeen = new Set<string>();
  for (const r of facts.received) {
    const seq = seqOf.get(r.eventId);
    if (seq === undefined) {
      problems.push(`received ${r.eventId}, which is no event of merchant ${r.merchantId}`);
      continue;
    }
    if (firstSeen.has(r.eventId)) continue; // a repeat (at least once) says nothing about order
    firstSeen.add(r.eventId);
    const prev = lastSeq.get(r.merchantId) ?? 0;
    if (seq <= prev) problems.push(`merchant ${r.merchantId}: event #${seq} first arrived after #${prev}`);
    lastSeq.set(r.merchantId, Math.max(prev, seq));
  }
  return problems;
}

export interface InvariantReport {
  deposits: string[];
  payouts: string[];
  balances: string[];
  webhooks: string[];
}

export async function allProblems(db: Db, facts: SoakFacts): Promise<InvariantReport> {
  return {
    deposits: await depositProblems(db, facts),
    payouts: await payoutProblems(db, facts),
    balances: await balanceProblems(db),
    webhooks: await webhookProblems(db, facts),
  };
}

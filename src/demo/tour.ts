/**
 * `paygate demo --tour`: the whole story on a fresh demo instance, narrated step by step: an
 * invoice is created, paid on the (simulated) chain, seen, confirmed and settled; the merchant's
 * balance grows; a payout is requested, approved by the operator and confirmed on chain; and the
 * merchant's webhook receiver got every event, signed; the owner sees it all in the cabinet; and the
 * customer of the demo's page link pays it through the payment page's routes. It succeeds only if
 * every step happened.
 */
import { systemClock } from '../clock.js';
import { formatAmount } from '../money.js';
import { merchantBalances } from '../ledger/operator.js';
import { approvePayout } from '../payouts/operator.js';
import type { RunningDemo } from './index.js';
import { payThroughPage } from './page-tour.js';

type Json = Record<string, unknown>;

export interface TourStep {
  step: string;
  ok: boolean;
  detail: string;
}

const STEP_TIMEOUT_MS = 120_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runTour(demo: RunningDemo, say: (line: string) => void): Promise<TourStep[]> {
  const { info } = demo;
  const key = info.api_key;
  const started = Date.now();
  const steps: TourStep[] = [];
  const at = () => `[${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s]`;
  const record = (step: string, ok: boolean, detail: string) => {
    steps.push({ step, ok, detail });
    say(`${at()} ${ok ? '✔' : '✘'} ${step}: ${detail}`);
    return ok;
  };
  const call = async (method: string, route: string, body?: Json) => {
    const res = await fetch(`${info.api_url}${route}`, {
      method,
      headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  /** Polls a resource until `done`, narrating every status it passes through. */
  const follow = async (route: string, done: (r: Json) => boolean): Promise<Json> => {
    let last = '';
    const deadline = Date.now() + STEP_TIMEOUT_MS;
    for (;;) {
      const r = (await call('GET', route)).body;
      if (r.status !== last) say(`${at()}   ${route} is ${String(r.status)}`);
      last = String(r.status);
      if (done(r) || Date.now() > deadline) return r;
      await sleep(200);
    }
  };

  const inv = info.invoice;
  say(`${at()} The shop created invoice ${inv.invoice_id}: ${inv.amount} ${inv.asset} to ${inv.address}`);
  const paid = demo.devnet.control.pay({ to: inv.address, asset: inv.asset, amount: 12_500_000n });
  record('customer pays', true, `12.5 USDT sent from ${paid.from}, tx ${paid.txid}`);

  const settled = await follow(`/invoices/${inv.invoice_id}`, (r) => r.status === 'settled');
  if (
    !record(
      'invoice settled',
      settled.status === 'settled',
      `received ${String(settled.amount_received)}, credited ${String(settled.amount_credited)} (1 % service fee)`,
    )
  )
    return steps;

  const usdt = (
    await merchantBalances(demo.app.services.db, demo.app.services.catalog, info.merchant_id)
  ).balances.find((b) => b.asset === 'USDT_TRON');
  record(
    'balance',
    usdt?.available === '112.375',
    `available ${usdt?.available ?? '0'} USDT (100 opening + 12.375 credited)`,
  );

  const before = demo.devnet.control.balances(info.payout_address).tokens.USDT_TRON ?? 0n;
  const created = await call('POST', '/payouts', {
    reference: 'tour-payout-1',
    asset: 'USDT_TRON',
    to_address: info.payout_address,
    amount: '5',
  });
  const payout = created.body;
  const reasons = (payout.review_reasons as string[] | undefined) ?? [];
  if (
    !record(
      'payout requested',
      created.status === 202,
      `5 USDT to ${info.payout_address}: ${String(payout.status)} ${reasons.join(', ')}`,
    )
  )
    return steps;
  if (payout.status === 'pending_review') {
    await approvePayout(demo.app.services.db, systemClock, 'demo-operator', String(payout.payout_id));
    say(`${at()}   the operator approved it (paygate payout approve ${String(payout.payout_id)})`);
  }
  demo.app.workers?.wake('payouts');
  const sent = await follow(
    `/payouts/${String(payout.payout_id)}`,
    (r) => r.status === 'confirmed' || r.status === 'failed',
  );
  const arrived = (demo.devnet.control.balances(info.payout_address).tokens.USDT_TRON ?? 0n) - before;
  const ok = sent.status === 'confirmed' && typeof sent.tx_hash === 'string' && arrived === 5_000_000n;
  record(
    'payout confirmed',
    ok,
    `tx ${String(sent.tx_hash)}; the recipient received ${formatAmount(arrived, 6)} USDT on chain`,
  );

  const wanted = ['invoice.seen', 'invoice.confirmed', 'invoice.settled', 'payout.confirmed'];
  const deadline = Date.now() + 30_000;
  const types = () => demo.receiver.received.filter((e) => e.merchantName === 'Demo shop').map((e) => e.type);
  while (!wanted.every((t) => types().includes(t)) && Date.now() < deadline) await sleep(200);
  const got = types();
  record(
    'webhooks',
    wanted.every((t) => got.includes(t)) && demo.receiver.refused === 0,
    `${got.length} verified deliveries: ${got.join(', ')}`,
  );

  await ownersView(demo, String(payout.payout_id), say, record, at);
  await payThroughPage(demo, say, record, at);
  return steps;
}

/** The end of the story as the merchant's owner sees it: the same invoice and payout through /cabinet/v1. */
async function ownersView(
  demo: RunningDemo,
  payoutId: string,
  say: (line: string) => void,
  record: (step: string, ok: boolean, detail: string) => boolean,
  at: () => string,
): Promise<void> {
  const { cabinet, merchant_id: merchantId, invoice } = demo.info;
  const cab = async (method: string, route: string, token?: string, body?: Json) => {
    const res = await fetch(`${cabinet.url}/cabinet/v1${route}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: res.status === 204 ? {} : ((await res.json()) as Json) };
  };
  const session = await cab('POST', '/sessions', undefined, { email: cabinet.email, password: cabinet.password });
  const token = String(session.body.token);
  const base = `/merchants/${merchantId}`;
  const [seenInvoice, seenPayout, balances] = await Promise.all([
    cab('GET', `${base}/invoices/${invoice.invoice_id}`, token),
    cab('GET', `${base}/payouts/${payoutId}`, token),
    cab('GET', `${base}/balances`, token),
  ]);
  await cab('DELETE', '/sessions/current', token);
  const usdt = (balances.body.balances as Json[] | undefined)?.find((b) => b.asset === 'USDT_TRON');
  say(`${at()} The owner signs in to the cabinet (${cabinet.url}) as ${cabinet.email}:`);
  say(
    `${at()}   invoice ${invoice.invoice_id}: ${String(seenInvoice.body.status)}, received ${String(seenInvoice.body.amount_received)}, credited ${String(seenInvoice.body.amount_credited)}, ${(seenInvoice.body.deposits as Json[] | undefined)?.length ?? 0} deposit(s)`,
  );
  say(
    `${at()}   payout ${payoutId}: ${String(seenPayout.body.status)}, ${String(seenPayout.body.amount)} ${String(seenPayout.body.asset)} to ${String(seenPayout.body.to_address)}, tx ${String(seenPayout.body.tx_hash)}`,
  );
  say(`${at()}   balance: ${String(usdt?.available ?? '0')} USDT available`);
  record(
    "owner's cabinet",
    session.status === 201 && seenInvoice.body.status === 'settled' && seenPayout.body.status === 'confirmed',
    'the owner sees the settled invoice and the confirmed payout through /cabinet/v1',
  );
}

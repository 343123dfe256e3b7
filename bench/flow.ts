/**
 * Throughput of the whole payment flow through a real `paygate serve` process: devnet blocks full
 * of customer payments → invoices `seen` → `confirmed` → `settled` with their ledger credits →
 * webhooks delivered to the merchants' loopback receivers (signatures verified).
 *
 * Set-up (not timed): PAYMENTS open invoices (3 of 4 USDT, 1 of 4 TRX) over MERCHANTS merchants,
 * each with a 1 % service fee and a webhook endpoint on this process's receiver. A devnet (own
 * process, manual block production, solid block 19 behind the head: its default) and `serve`
 * (own process, default CONFIRMATIONS=19, watcher looking for a new head every 1 s) start; the
 * watcher catches up to the head.
 * Timed, in two stages so each has its own figure:
 *   1. the payments are appended as full blocks (300 transactions each, every one a payment):
 *      until every invoice reads `seen` (or later);
 *   2. 19 more full blocks of unrelated transactions (the payment blocks reach 19 confirmations
 *      and the solid height together): until every invoice reads `confirmed`, then `settled`;
 *   and the webhook deliveries of those changes until the dispatcher is drained.
 * Then correctness: every invoice settled, each merchant's ledger = its payments − fees, every
 * event received once with a valid signature, the shared deposit/ledger rules.
 *
 *   npx tsx bench/flow.ts [payments=3000] [--merchants 5] [--json] [--cpu-prof dir]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import Sqlite from 'better-sqlite3';
import { buildApp } from '../src/app.js';
import { toHexAddress } from '../src/chain/address.js';
import { systemClock } from '../src/clock.js';
import { parseConfig } from '../src/config.js';
import { setServiceFee } from '../src/fees/service.js';
import { GroupCommit } from '../src/db/group-commit.js';
import { createInvoice } from '../src/invoices/service.js';
import { changeMerchant, createMerchant } from '../src/merchants/service.js';
import { findMerchant, type MerchantRow } from '../src/merchants/store.js';
import { parseAmount, percentOf } from '../src/money.js';
import { SERVE_NODE_FLAGS } from '../src/operations/heap.js';
import { initWallet } from '../src/wallet/service.js';
import { setEndpoint } from '../src/webhooks/endpoints.js';
import { checkFlow, type PaidInvoice } from './lib/flow-check.js';
import { cpuSeconds } from './lib/child.js';
import { summary } from './lib/summary.js';
import { startWebhookReceiver } from './lib/webhook-receiver.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    merchants: { type: 'string', default: '5' },
    json: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
  },
});
const PAYMENTS = Number(positionals[0] ?? 3000);
const MERCHANTS = Number(values.merchants);
const CONFIRMATION_BLOCKS = 19;
const FEE_PERCENT = '1';
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const DEV_BIN = path.resolve(import.meta.dirname, '../bin/dev.js');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = values.json ? () => undefined : (line: string) => console.log(line);

/** A child that prints JSON lines: the first when ready, one per command written to its stdin. */
class LineChild {
  private readonly lines: Interface;
  private readonly queue: ((line: string) => void)[] = [];
  constructor(readonly child: ChildProcess) {
    this.lines = createInterface({ input: child.stdout! });
    this.lines.on('line', (l) => this.queue.shift()?.(l));
  }
  next(match: (line: string) => boolean = () => true): Promise<string> {
    return new Promise((resolve, reject) => {
      const take = (l: string) => (match(l) ? resolve(l) : this.queue.unshift(take));
      this.queue.push(take);
      this.child.once('exit', (code) => reject(new Error(`child exited with ${code}`)));
    });
  }
  async ask<T>(cmd: unknown): Promise<T> {
    const answer = this.next();
    this.child.stdin!.write(`${JSON.stringify(cmd)}\n`);
    return JSON.parse(await answer) as T;
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** Waits until `done()` holds, polling every 10 ms; returns performance.now() at that moment. */
async function until(what: string, done: () => boolean, timeoutMs = 600_000): Promise<number> {
  const t = performance.now();
  while (!done()) {
    if (performance.now() - t > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
  return performance.now();
}

/**
 * Waits until a process is idle (under 10 % of a core over half a second, twice): serve's start
 * (the sweeper's first full scan) is not the flow's work.
 */
async function settleDown(pid: number, timeoutMs = 120_000): Promise<void> {
  const t = performance.now();
  let quiet = 0;
  let before = cpuSeconds(pid);
  while (quiet < 2 && performance.now() - t < timeoutMs) {
    await sleep(500);
    const now = cpuSeconds(pid);
    quiet = now - before < 0.05 ? quiet + 1 : 0;
    before = now;
  }
}

interface Setup {
  invoices: PaidInvoice[];
  secrets: string[];
}

/** Merchants, fees, invoices and endpoints through the services (not timed). */
async function setUp(config: ReturnType<typeof parseConfig>, hookUrl: (m: number) => string): Promise<Setup> {
  const app = await buildApp(config, { workers: false });
  try {
    const s = app.services;
    await initWallet(s.db, systemClock, 'bench', config, { mnemonic: MNEMONIC, scrypt: { N: 1024, r: 8, p: 1 } });
    const merchants: MerchantRow[] = [];
    for (let m = 0; m < MERCHANTS; m++) {
      const v = await createMerchant(s.db, systemClock, 'bench', { name: `Flow shop ${m}` });
      await changeMerchant(s.db, systemClock, 'bench', v.merchant_id, 'approve');
      await setServiceFee(s.db, systemClock, 'bench', v.merchant_id, { percent: FEE_PERCENT, payer: 'merchant' });
      merchants.push((await findMerchant(s.db, v.merchant_id))!);
    }
    // After the fee is in force (valid_from is "now").
    await sleep(5);
    const deps = {
      db: s.db,
      clock: systemClock,
      catalog: s.catalog,
      allocator: s.addresses,
      groupCommit: new GroupCommit(s.db),
    };
    const invoices = await Promise.all(
      Array.from({ length: PAYMENTS }, async (_, i): Promise<PaidInvoice> => {
        const m = i % MERCHANTS;
        const asset = i % 4 === 3 ? 'TRX_TRON' : 'USDT_TRON';
        const amount = asset === 'TRX_TRON' ? `${20 + (i % 50)}` : `${10 + (i % 100)}.25`;
        const r = await createInvoice(deps, merchants[m]!, {
          order_id: `flow-${i}`,
          asset,
          amount,
          expires_in: 86_400,
        });
        const units = parseAmount(r.invoice.amount_expected, 6);
        return {
          id: r.invoice.invoice_id,
          merchant: m,
          merchantId: merchants[m]!.id,
          address: r.invoice.address,
          asset,
          amount: units,
          fee: percentOf(units, FEE_PERCENT),
        };
      }),
    );
    // Endpoints last: the invoice.created events before them have no deliveries; the flow's do.
    const secrets = [];
    for (const [m, merchant] of merchants.entries()) {
      const e = await setEndpoint(s.db, systemClock, 'bench', merchant.id, { url: hookUrl(m), allowPrivate: true });
      secrets.push(e.secret!);
    }
    return { invoices, secrets };
  } finally {
    await app.stop();
  }
}

async function main(): Promise<number> {
  const dir = mkdtempSync(path.join(tmpdir(), 'paygate-bench-flow-'));
  const receiver = await startWebhookReceiver();
  const children: ChildProcess[] = [];
  try {
    const env = {
      DATABASE_URL: path.join(dir, 'paygate.db'),
      WALLET_KEYSTORE: path.join(dir, 'keystore.json'),
      WALLET_PASSPHRASE: 'bench passphrase, long enough',
      TRON_NETWORK: 'devnet',
      PORT: '0',
      ADMIN_PORT: '0',
      CABINET_PORT: '0',
      PAY_PORT: '0',
      // info: serve's start line (the only one that says it listens when stdout is not a terminal).
      LOG_LEVEL: 'info',
    };
    let t = performance.now();
    const devnet = new LineChild(
      spawn(process.execPath, ['--import', 'tsx', path.resolve(import.meta.dirname, 'lib/flow-devnet.ts')], {
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
    children.push(devnet.child);
    const node = JSON.parse(await devnet.next()) as { url: string; head: number };
    const config = parseConfig({ ...env, TRON_FULL_NODE_URL: node.url });
    const { invoices, secrets } = await setUp(config, receiver.url);
    secrets.forEach((secret, m) => receiver.setSecret(m, secret));
    log(
      `set-up: ${PAYMENTS} invoices of ${MERCHANTS} merchants (${invoices.filter((i) => i.asset === 'TRX_TRON').length} TRX, the rest USDT) in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );

    const profArgs = values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : [];
    const serve = new LineChild(
      spawn(process.execPath, [...SERVE_NODE_FLAGS, ...profArgs, DEV_BIN, 'serve'], {
        env: { ...process.env, ...env, TRON_FULL_NODE_URL: node.url },
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
    children.push(serve.child);
    await serve.next((l) => l.includes('"msg":"paygate serving /v1"'));
    const db = new Sqlite(env.DATABASE_URL, { readonly: true });
    const cursor = db.prepare('select next_block from chain_cursor where id = 1').pluck();
    const count = db.prepare(`select count(*) from invoices where status in (select value from json_each(?))`).pluck();
    const counted = (...statuses: string[]) => Number(count.get(JSON.stringify(statuses)));
    await until('the watcher to reach the head', () => Number(cursor.get() ?? 0) > node.head);
    t = performance.now();
    await settleDown(serve.child.pid!);
    log(`serve started and idle after ${((performance.now() - t) / 1000).toFixed(1)} s more`);

    // Stage 1: the payment blocks.
    const paymentsFile = path.join(dir, 'payments.json');
    writeFileSync(
      paymentsFile,
      JSON.stringify(
        invoices.map((i) => ({ toHex: toHexAddress(i.address), amount: i.amount.toString(), asset: i.asset })),
      ),
    );
    const paid = await devnet.ask<{ first: number; last: number }>({ payments: paymentsFile });
    const t0 = performance.now();
    const cpu0 = cpuSeconds(serve.child.pid!);
    const tSeen = await until('every invoice seen', () => counted('seen', 'confirmed', 'settled') === PAYMENTS);
    const cpuSeen = cpuSeconds(serve.child.pid!);
    // Stage 2: the confirmation blocks.
    const conf = await devnet.ask<{ first: number; last: number; solid: number }>({ blocks: CONFIRMATION_BLOCKS });
    const t1 = performance.now();
    const cpu1 = cpuSeconds(serve.child.pid!);
    let tConfirmed = 0;
    const tSettled = await until('every invoice settled', () => {
      if (!tConfirmed && counted('confirmed', 'settled') === PAYMENTS) tConfirmed = performance.now();
      return counted('settled') === PAYMENTS;
    });
    const cpuSettled = cpuSeconds(serve.child.pid!);
    const expectedEvents = PAYMENTS * 3;
    const pending = db.prepare(`select count(*) from webhook_deliveries where status = 'pending'`).pluck();
    const tDrained = await until(
      'the dispatcher to drain',
      () => receiver.events.size >= expectedEvents && Number(pending.get()) === 0,
    );
    const cpuDrained = cpuSeconds(serve.child.pid!);
    db.close();
    await stop(serve.child);

    const problems = await checkFlow(env.DATABASE_URL, invoices, receiver);
    const times = [...receiver.events.values()].map((e) => e.at);
    const firstHook = Math.min(...times);
    const lastHook = Math.max(...times);
    const s = (ms: number) => ms / 1000;
    const rate = (n: number, ms: number) => Math.round(n / s(ms));
    const work = tSeen - t0 + (tSettled - t1);
    const figures = {
      payments: PAYMENTS,
      merchants: MERCHANTS,
      payment_blocks: paid.last - paid.first + 1,
      confirmation_blocks: conf.last - conf.first + 1,
      seen_s: s(tSeen - t0),
      confirmed_s: s(tConfirmed - t1),
      settled_s: s(tSettled - t1),
      seen_per_s: rate(PAYMENTS, tSeen - t0),
      confirmed_per_s: rate(PAYMENTS, tConfirmed - t1),
      settled_per_s: rate(PAYMENTS, tSettled - t1),
      flow_per_s: rate(PAYMENTS, work),
      webhooks: receiver.events.size,
      webhook_s: s(lastHook - firstHook),
      webhooks_per_s: rate(receiver.events.size, lastHook - firstHook),
      drained_after_settled_s: s(tDrained - tSettled),
      // serve's CPU time (all threads) per payment: robust to other load on the machine.
      cpu_ms_per_payment_chain: Number(((1000 * (cpuSeen - cpu0 + cpuSettled - cpu1)) / PAYMENTS).toFixed(3)),
      cpu_ms_per_payment_all: Number(((1000 * (cpuDrained - cpu0)) / PAYMENTS).toFixed(3)),
      load: loadavg().map((l) => Number(l.toFixed(2))),
      problems,
    };
    if (values.json) console.log(JSON.stringify(figures));
    log(
      `node ${process.version}, ${cpus().length} cores, load average ${figures.load.join(' ')}; CONFIRMATIONS=19, devnet solid block 19 behind the head`,
    );
    log(
      `stage 1: ${figures.payment_blocks} blocks × 300 payments → all ${PAYMENTS} invoices seen in ${figures.seen_s.toFixed(2)} s = ${figures.seen_per_s} payments/s (includes the watcher's 0–1 s wait for a new head)`,
    );
    log(
      `stage 2: ${figures.confirmation_blocks} confirmation blocks → all confirmed in ${figures.confirmed_s.toFixed(2)} s = ${figures.confirmed_per_s}/s, settled with credits in ${figures.settled_s.toFixed(2)} s = ${figures.settled_per_s}/s`,
    );
    log(
      `whole flow: ${PAYMENTS} payments in ${s(work).toFixed(2)} s of work (stage 1 + stage 2) = ${figures.flow_per_s} payments/s`,
    );
    log(
      `serve CPU: ${figures.cpu_ms_per_payment_chain} ms per payment during the two stages (watcher, settlement and the dispatcher meanwhile), ${figures.cpu_ms_per_payment_all} ms per payment from the first block until drained`,
    );
    log(
      `webhooks: ${figures.webhooks} events (seen, confirmed, settled) received with valid signatures over ${figures.webhook_s.toFixed(2)} s = ${figures.webhooks_per_s} deliveries/s; drained ${figures.drained_after_settled_s.toFixed(2)} s after the last settlement; ${receiver.stats.duplicates} duplicates, ${receiver.stats.badSignatures} bad signatures`,
    );
    log(
      problems.length === 0
        ? 'correctness: every invoice settled, ledgers = payments − fees, every event received once'
        : `CORRECTNESS PROBLEMS (${problems.length}):\n  ${problems.slice(0, 20).join('\n  ')}`,
    );
    summary({
      metric: `payments → settled + credited (${PAYMENTS}, 2 stages)`,
      value: `${figures.flow_per_s}/s`,
      ok: problems.length === 0,
    });
    summary({ metric: 'payments → seen (stage 1)', value: `${figures.seen_per_s}/s` });
    summary({ metric: 'confirmations → settled (stage 2)', value: `${figures.settled_per_s}/s` });
    summary({
      metric: `webhook deliveries (${figures.webhooks}, ${MERCHANTS} merchants)`,
      value: `${figures.webhooks_per_s}/s`,
      ok: problems.length === 0,
    });
    return problems.length === 0 ? 0 : 1;
  } finally {
    for (const c of children.reverse()) await stop(c);
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exit(await main());

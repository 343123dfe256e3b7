/**
 * Server half of bench/api.ts and bench/scale.ts, in its own process so the load generator does
 * not share its CPU. Two kinds, chosen by the first argument:
 *
 * - `bare`: plain fastify with no hooks, a constant GET (also under `/bare/:id`, so that the load
 *   generator builds the same request per call as for GET /v1/invoices/{id}) and a POST echo (the
 *   yardstick).
 * - `app` (default): the real app as `paygate serve` builds it (background work on, logs at warn,
 *   rate limits raised) over BENCH_DB (a fresh temporary database when unset). It prepares a
 *   wallet, an approved merchant (BENCH_MERCHANT_ID to use an existing one, e.g. of a seeded
 *   database), an API key, 1,000 invoices and a payout to read, then prints one JSON line:
 *   {url, key, invoices, payouts, pid} and serves until killed.
 */
import Fastify from 'fastify';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import inspector from 'node:inspector';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import type pg from 'pg';
import { buildApp } from '../src/app.js';
import { StatementRunner } from '../src/db/driver.js';
import { systemClock } from '../src/clock.js';
import { parseConfig } from '../src/config.js';
import { openDatabase, writeTx } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { approvedMerchantWithKey, issueKey } from '../src/keys/service.js';
import { insertPayout, NOT_SIGNED } from '../src/payouts/store.js';
import { overdueExpired } from './lib/seed.js';
import { initWallet } from '../src/wallet/service.js';

export interface ServerInfo {
  url: string;
  key: string;
  invoices: string[];
  payouts: string[];
  pid: number;
}

async function bare(): Promise<void> {
  const app = Fastify({ logger: false });
  app.get('/bare', async () => ({ ok: true }));
  app.get('/bare/:id', async () => ({ ok: true }));
  app.post('/echo', async (req) => req.body);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const profile = await profileFromHere();
  process.stdout.write(JSON.stringify({ url, key: '', invoices: [], payouts: [], pid: process.pid }) + '\n');
  process.on('SIGTERM', () => void profile().then(() => process.exit(0)));
}

async function real(): Promise<void> {
  const onPostgres = process.env.BENCH_DB?.startsWith('postgres') ?? false;
  const temp = process.env.BENCH_DB && !onPostgres ? null : mkdtempSync(path.join(tmpdir(), 'paygate-bench-api-'));
  const dbFile = process.env.BENCH_DB ?? path.join(temp as string, 'bench.db');
  const env = {
    DATABASE_URL: dbFile,
    WALLET_KEYSTORE: path.join(onPostgres ? (temp as string) : path.dirname(dbFile), 'keystore.json'),
    WALLET_PASSPHRASE: 'benchmark passphrase',
    TRON_NETWORK: 'devnet',
    // The node bench/lib/api-bench.ts started, if any (else the watcher retries an absent one).
    ...(process.env.TRON_FULL_NODE_URL ? { TRON_FULL_NODE_URL: process.env.TRON_FULL_NODE_URL } : {}),
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'warn',
  };
  // Limits are counted (the work is measured) but never reached: a run sends millions a minute,
  // past what the variables accept.
  const config = {
    ...parseConfig({ ADMIN_PORT: '0', CABINET_PORT: '0', PAY_PORT: '0', ...env }),
    rateLimitPerIp: Number.MAX_SAFE_INTEGER,
    rateLimitPerKey: Number.MAX_SAFE_INTEGER,
  };
  // Operator setup, as the CLI does it, before serve starts.
  const setup = openDatabase(config.database);
  await migrateToLatest(setup.db);
  if (!existsSync(config.walletKeystore)) await initWallet(setup.db, systemClock, 'bench', config);
  const merchantId = process.env.BENCH_MERCHANT_ID;
  const key = merchantId
    ? (await issueKey(setup.db, systemClock, 'bench', merchantId)).api_key
    : (await approvedMerchantWithKey(setup.db, systemClock, 'bench', { name: 'Bench shop' })).apiKey;
  await setup.close();

  // As `paygate serve` builds it (commands/serve.ts), minus the keystore unlock it does not need.
  const app = await buildApp(config, { workers: true });
  const url = await app.start();
  const db = app.services.db;
  if (process.env.BENCH_DB && !onPostgres) await overdueExpired(db, (line) => process.stderr.write(`${line}\n`));
  const merchant =
    merchantId ??
    (await db.selectFrom('api_keys').select('merchant_id').orderBy('created_at', 'desc').executeTakeFirstOrThrow())
      .merchant_id;
  // Invoices to read: a sample of the merchant's (seeded ones on a seeded database), else 1,000 new.
  // Of the same shape on a seeded database as on a fresh one (open, no deposits yet), so that a
  // comparison of the two measures the size of the database, not the size of the answers.
  let invoices = (
    await db
      .selectFrom('invoices')
      .select('id')
      .where('merchant_id', '=', merchant)
      .where('status', '=', 'created')
      .limit(1000)
      .execute()
  ).map((r) => r.id);
  if (invoices.length === 0) {
    for (let i = 0; i < 1000; i++) {
      const res = await fetch(`${url}/v1/invoices`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ order_id: `read-${i}`, asset: 'USDT_TRON', amount: '10', expires_in: 3600 }),
      });
      if (res.status !== 201) throw new Error(`invoice setup failed: ${res.status} ${await res.text()}`);
    }
    invoices = (await db.selectFrom('invoices').select('id').where('merchant_id', '=', merchant).execute()).map(
      (r) => r.id,
    );
  }
  // Payouts to read, the same way: 1,000 waiting for review, of the seed's shape (bench/lib/seed.ts),
  // on either database. A single payout read again and again, against the seeded database's
  // thousand (most of them confirmed, with a transaction hash), compared answers, not databases.
  const pendingReview = () =>
    db
      .selectFrom('payouts')
      .select('id')
      .where('merchant_id', '=', merchant)
      .where('status', '=', 'pending_review')
      .limit(1000)
      .execute();
  let payouts = (await pendingReview()).map((r) => r.id);
  if (payouts.length === 0) {
    // Payout rows as creation writes them (the ledger is not read by GET /v1/payouts/{id}), in
    // one transaction: one fsync, not a thousand.
    await writeTx(db, async (trx) => {
      for (let i = 0; i < 1000; i++) {
        const at = new Date().toISOString();
        await insertPayout(trx, {
          id: randomUUID(),
          merchant_id: merchant,
          reference: `bench-read-${i}`,
          status: 'pending_review',
          asset: 'USDT_TRON',
          network: 'tron',
          decimals: 6,
          to_address: 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL',
          amount: '5000000',
          fee_amount: '1000000',
          fee_charged: '0',
          fee_schedule_id: null,
          review_reasons: '[]',
          tx_hash: null,
          reviewed_by: null,
          reviewed_at: null,
          reject_reason: null,
          created_at: at,
          updated_at: at,
          ...NOT_SIGNED,
        });
      }
    });
    payouts = (await pendingReview()).map((r) => r.id);
  }
  const profile = await profileFromHere();
  const loopDelay = loopDelayFromHere();
  const statements = statementsFromHere();
  process.stdout.write(JSON.stringify({ url, key, invoices, payouts, pid: process.pid }) + '\n');
  process.on(
    'SIGTERM',
    () =>
      void profile()
        .then(loopDelay)
        .then(statements)
        .then(() => app.stop())
        .then(() => {
          if (temp) rmSync(temp, { recursive: true, force: true });
          process.exit(0);
        }),
  );
}

/**
 * With BENCH_CPU_PROF=<file>, a CPU profile of the load only (from ready to SIGTERM): node's
 * --cpu-prof would also record the setup (wallet, the invoices to read).
 */
async function profileFromHere(): Promise<() => Promise<void>> {
  const file = process.env.BENCH_CPU_PROF;
  if (!file) return async () => {};
  const session = new inspector.Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))),
    );
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 200 });
  await post('Profiler.start');
  return async () => {
    const { profile } = (await post('Profiler.stop')) as { profile: unknown };
    writeFileSync(file, JSON.stringify(profile));
  };
}

/**
 * With BENCH_LOOP_DELAY set, the event loop's delay from ready to SIGTERM (monitorEventLoopDelay,
 * 10 ms resolution as node documents it), printed on stderr at the end.
 */
function loopDelayFromHere(): () => void {
  if (!process.env.BENCH_LOOP_DELAY) return () => {};
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  return () => {
    h.disable();
    const ms = (ns: number) => (ns / 1e6).toFixed(1);
    process.stderr.write(
      `event loop delay from ready to stop: p50 ${ms(h.percentile(50))} ms, p99 ${ms(h.percentile(99))} ms, max ${ms(h.max)} ms\n`,
    );
  };
}

/**
 * With BENCH_STATEMENTS=<file>, every statement this process sends from ready to SIGTERM, written
 * to the file as {sql: [count, µs]}: on SQLite the µs are the time inside SQLite (the statement runs
 * synchronously on the event loop, a COMMIT's fsync included); on PostgreSQL the count alone (the
 * time is the server's, and the client's CPU shows in the profile).
 */
function statementsFromHere(): () => void {
  const file = process.env.BENCH_STATEMENTS;
  if (!file) return () => {};
  const seen = new Map<string, [number, number]>();
  const note = (sql: string, us: number) => {
    const s = seen.get(sql) ?? [0, 0];
    s[0]++;
    s[1] += us;
    seen.set(sql, s);
  };
  type RunOnce = (compiled: { sql: string }) => unknown;
  const runner = StatementRunner.prototype as unknown as { runOnce: RunOnce };
  const runOnce = runner.runOnce;
  runner.runOnce = function (this: unknown, compiled) {
    const t = performance.now();
    try {
      return runOnce.call(this, compiled);
    } finally {
      note(compiled.sql, (performance.now() - t) * 1000);
    }
  };
  const client = (createRequire(import.meta.url)('pg') as typeof pg).Client.prototype as unknown as {
    query: (...args: unknown[]) => unknown;
  };
  const query = client.query;
  client.query = function (this: unknown, ...args: unknown[]) {
    const q = args[0];
    note(typeof q === 'string' ? q : ((q as { text?: string })?.text ?? '(other)'), 0);
    return query.apply(this, args);
  };
  return () => {
    const out: Record<string, [number, number]> = {};
    for (const [sql, [n, us]] of seen) {
      const s = (out[sql.replace(/\s+/g, ' ').trim()] ??= [0, 0]);
      s[0] += n;
      s[1] += us;
    }
    writeFileSync(file, JSON.stringify(out));
  };
}

if (process.argv[2] === 'bare') await bare();
else await real();

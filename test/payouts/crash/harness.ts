/**
 * The crash test of the payout worker, shared by the CI test (crash.test.ts) and
 * the longer run (scripts/payout-crash.ts): a devnet in this process, `serve` in a child process
 * over one SQLite file, N payouts created over HTTP, the child SIGKILLed at random moments (and
 * killing itself right after storing a signed transaction), restarted each time until every
 * payout is final. Then what the chain holds is compared with the database.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { TronWeb } from 'tronweb';
import { systemClock } from '../../../src/clock.js';
import type { PayoutStatus } from '../../../src/db/schema.js';
import { openDatabase, type Database } from '../../../src/db/database.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { startDevnet, type Devnet, type FaultSpec } from '../../../src/devnet/index.js';
import { approvedMerchantWithKey } from '../../../src/keys/service.js';
import { creditMerchant } from '../../../src/ledger/operator.js';
import { loadCatalog } from '../../../src/assets/catalog.js';
import { approvePayout, cancelPayout } from '../../../src/payouts/operator.js';
import { addToWhitelist } from '../../../src/whitelist/service.js';
import { tempDir } from '../../helpers/app.js';
import { ledgerProblems, newKeystore, PASSPHRASE, transfersFrom } from '../worker-fixture.js';
import { testDatabaseUrl } from '../../helpers/database.js';

const CHILD = path.resolve(import.meta.dirname, 'serve-child.ts');
const FINAL: PayoutStatus[] = ['confirmed', 'failed', 'rejected'];

export interface CrashOptions {
  payouts: number;
  /** Kills by the test (the child's own kills after signing come on top). */
  kills: number;
  /** Probability that the child kills itself right after storing a signed transaction. */
  killAfterSign: number;
  /** Node faults added at every start (e.g. busy, lost_answer, hang on the broadcast path). */
  faults?: FaultSpec[];
  /** Cancel every n-th payout at some point (those still cancellable become rejected). */
  cancelEvery?: number;
  log?: (line: string) => void;
}

export interface CrashReport {
  payouts: number;
  testKills: number;
  selfKills: number;
  starts: number;
  byStatus: Record<string, number>;
  /** Problems found; empty when the run held every promise. */
  problems: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Running {
  child: ChildProcess;
  url: string;
  exited: Promise<number | null>;
}

interface Warm {
  child: ChildProcess;
  killAfterSign: number;
  exited: Promise<number | null>;
}

/** A child with its modules loaded, waiting for "go" on stdin. */
function prewarm(env: Record<string, string>, killAfterSign: number): Warm {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    env: { ...process.env, ...env, CRASH_CHILD_WAIT: '1', PAYGATE_TEST_KILL_AFTER_SIGN: String(killAfterSign) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ? -1 : code)),
  );
  return { child, killAfterSign, exited };
}

async function go(warm: Warm): Promise<Running | null> {
  const { child, exited } = warm;
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += d));
  const lines = createInterface({ input: child.stdout! });
  const ready = new Promise<string>((resolve) =>
    lines.on('line', (l) => l.startsWith('READY ') && resolve(l.slice(6).trim())),
  );
  child.stdin?.end('go\n');
  const url = await Promise.race([ready, exited.then(() => null)]);
  if (url === null) {
    // Killed itself before listening (a payout signed right at start): a crash like any other.
    if ((await exited) !== -1) throw new Error(`serve failed to start: ${stderr.slice(0, 2000)}`);
    return null;
  }
  return { child, url, exited };
}

async function post(url: string, key: string, body: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(`${url}/v1/payouts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: await r.json() };
}

export async function runCrashTest(opts: CrashOptions): Promise<CrashReport> {
  const log = opts.log ?? (() => undefined);
  const dir = tempDir('paygate-crash-');
  const devnet: Devnet = await startDevnet({ blockTimeMs: 200, solidLag: 3 });
  const catalog = loadCatalog('devnet');
  const ks = await newKeystore(dir);
  const env = {
    DATABASE_URL: (await testDatabaseUrl(path.join(dir, 'paygate.db'))).url,
    WALLET_KEYSTORE: ks.keystore,
    WALLET_PASSPHRASE: PASSPHRASE,
    TRON_NETWORK: 'devnet',
    TRON_FULL_NODE_URL: devnet.url,
    PORT: '0',
    LOG_LEVEL: 'silent',
  };
  const database: Database = openDatabase(env.DATABASE_URL);
  const db = database.db;
  let running: Running | null = null;
  let warmRef: Warm | null = null;
  const warmChild = () => warmRef;
  try {
    await migrateToLatest(db);
    const { merchant, apiKey } = await approvedMerchantWithKey(db, systemClock, 'test', { name: 'Crash shop' });
    const mid = merchant.merchant_id;
    await creditMerchant(db, systemClock, 'test', catalog, mid, {
      asset: 'USDT_TRON',
      amount: '1000000',
      memo: 'seed',
    });
    await creditMerchant(db, systemClock, 'test', catalog, mid, { asset: 'TRX_TRON', amount: '100000', memo: 'seed' });
    const addresses = Array.from(
      { length: 8 },
      () => TronWeb.address.fromPrivateKey(randomBytes(32).toString('hex')) as string,
    );
    for (const address of addresses) {
      for (const asset of ['USDT_TRON', 'TRX_TRON'])
        await addToWhitelist(db, systemClock, 'test', catalog, mid, { asset, address, delay: '0' });
    }
    devnet.control.fund({ address: ks.hotAddress, asset: 'TRX_TRON', amount: 1_000_000_000_000n });
    devnet.control.fund({ address: ks.hotAddress, asset: 'USDT_TRON', amount: 1_000_000_000_000n, mine: true });

    let starts = 0;
    let testKills = 0;
    let selfKills = 0;
    let warm: Warm | null = null;
    const start = async (killAfterSign: number) => {
      devnet.control.clearFaults();
      for (const f of opts.faults ?? []) devnet.control.addFault(f);
      starts++;
      const t0 = Date.now();
      if (warm && warm.killAfterSign !== killAfterSign) {
        warm.child.kill('SIGKILL');
        await warm.exited;
        warm = null;
      }
      const next: Warm = warm ?? prewarm(env, killAfterSign);
      // The next one loads its modules while this one runs.
      warm = prewarm(env, killAfterSign);
      warmRef = warm;
      const r = await go(next);
      log(`start ${starts}: ${r ? 'ready' : 'died'} after ${Date.now() - t0} ms`);
      if (!r) selfKills++;
      return r;
    };

    // Phase 1: N payouts over HTTP (retried with the same reference across restarts: idempotent).
    const bodies = Array.from({ length: opts.payouts }, (_, i) => ({
      reference: `crash-${i}`,
      asset: i % 4 === 3 ? 'TRX_TRON' : 'USDT_TRON',
      to_address: addresses[i % addresses.length] as string,
      amount: `${1 + (i % 7)}.${i % 10}`,
    }));
    const ids: string[] = [];
    for (const body of bodies) {
      for (;;) {
        running ??= await start(opts.killAfterSign);
        if (!running) continue;
        try {
          const r = await post(running.url, apiKey, body);
          if (r.status !== 200 && r.status !== 202)
            throw new Error(`payout ${body.reference}: ${r.status} ${JSON.stringify(r.body)}`);
          ids.push(r.body.payout_id as string);
          if (r.body.status === 'pending_review')
            await approvePayout(db, systemClock, 'test', r.body.payout_id as string);
          break;
        } catch (e) {
          if (e instanceof Error && e.message.startsWith('payout ')) throw e;
          selfKills++; // the child died under us
          running = null;
        }
      }
    }
    log(`created ${ids.length} payouts`);

    // Phase 2: kill at random moments, restart, until the kill budget is spent.
    while (testKills < opts.kills) {
      running ??= await start(opts.killAfterSign);
      if (!running) continue;
      const r: Running = running;
      const outcome = await Promise.race([
        sleep(300 + Math.random() * 1500).then(() => 'timer' as const),
        r.exited.then(() => 'exited' as const),
      ]);
      if (outcome === 'timer') {
        r.child.kill('SIGKILL');
        testKills++;
      } else selfKills++;
      await r.exited;
      running = null;
      if (opts.cancelEvery && testKills === Math.floor(opts.kills / 2)) {
        for (const [i, id] of ids.entries()) {
          if (i % opts.cancelEvery === 0)
            await cancelPayout(db, systemClock, 'test', id, 'crash test cancel').catch(() => undefined);
        }
      }
      log(`kill ${testKills}/${opts.kills} (self-kills ${selfKills})`);
    }

    // Phase 3: run without the hook until every payout is final.
    const deadline = Date.now() + 120_000;
    for (;;) {
      running ??= await start(0);
      const open = await db.selectFrom('payouts').select('id').where('status', 'not in', FINAL).execute();
      if (open.length === 0) break;
      if (Date.now() > deadline) throw new Error(`${open.length} payouts not final after 120 s`);
      await sleep(200);
    }
    if (running) {
      running.child.kill('SIGINT');
      await running.exited;
      running = null;
    }
    if (warm) {
      (warm as Warm).child.kill('SIGKILL');
      await (warm as Warm).exited;
      warm = null;
      warmRef = null;
    }

    // What the chain holds against the database.
    const rows = await db.selectFrom('payouts').selectAll().execute();
    const problems: string[] = [...(await ledgerProblems(db))];
    const onChain = transfersFrom(devnet, ks.hotAddress);
    const byTxid = new Map(onChain.map((t) => [t.txid, t]));
    const ours = new Set(rows.map((r) => r.tx_hash).filter(Boolean));
    for (const t of onChain)
      if (!ours.has(t.txid)) problems.push(`transaction ${t.txid} from the hot wallet belongs to no payout`);
    const succeeded = onChain.filter((t) => t.ret === 'SUCCESS');
    for (const r of rows) {
      const t = r.tx_hash ? byTxid.get(r.tx_hash) : undefined;
      if (r.status === 'confirmed') {
        if (!t || t.ret !== 'SUCCESS') problems.push(`confirmed payout ${r.id} has no successful transfer on chain`);
        else if (t.amount !== BigInt(r.amount) || t.to !== TronWeb.address.toHex(r.to_address).toLowerCase())
          problems.push(`payout ${r.id}: chain sent ${t.amount} to ${t.to}`);
      }
      if (r.status === 'failed' && t?.ret === 'SUCCESS')
        problems.push(`failed payout ${r.id} has a successful transfer`);
      if (r.status === 'rejected' && t) problems.push(`rejected payout ${r.id} has a transaction on chain`);
    }
    const confirmed = rows.filter((r) => r.status === 'confirmed').length;
    if (succeeded.length !== confirmed)
      problems.push(`${succeeded.length} successful transfers on chain for ${confirmed} confirmed payouts`);
    const byStatus: Record<string, number> = {};
    for (const r of rows) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
    for (const asset of ['USDT_TRON', 'TRX_TRON']) {
      const b = await db
        .selectFrom('ledger_entries')
        .select('reserved_after')
        .where('merchant_id', '=', mid)
        .where('asset', '=', asset)
        .orderBy('seq', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (b && b.reserved_after !== '0')
        problems.push(`${asset}: ${b.reserved_after} still reserved with every payout final`);
    }
    return { payouts: rows.length, testKills, selfKills, starts, byStatus, problems };
  } finally {
    for (const p of [running, warmChild()]) {
      if (!p) continue;
      p.child.kill('SIGKILL');
      await p.exited;
    }
    await database.close();
    await devnet.close();
  }
}

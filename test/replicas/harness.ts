/**
 * Replicas on PostgreSQL for the tests of test/replicas: a database of their own on the test
 * server (always PostgreSQL, whatever engine the suite runs on: several `serve` processes on
 * several hosts is what PostgreSQL is for), a devnet in this process as the TRON node, a keystore,
 * an approved merchant with a key, and `serve` replicas as child processes (replica-child.ts: the
 * real app with its real background work) spawned ahead so that their modules load while the
 * test sets up. The lease is short (WORKER_LEASE_TTL=2s): a dead holder is replaced within seconds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { TronWeb } from 'tronweb';
import { loadCatalog } from '../../src/assets/catalog.js';
import { systemClock } from '../../src/clock.js';
import { openDatabase, type Database, type Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { startDevnet, type Devnet, type DevnetOptions } from '../../src/devnet/index.js';
import { approvedMerchantWithKey, issueKey } from '../../src/keys/service.js';
import { creditMerchant } from '../../src/ledger/operator.js';
import { liveLease } from '../../src/runtime/lease.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import { TEST_HASH_COST, tempDir } from '../helpers/app.js';
import { createPostgresDatabase, type TestPostgres } from '../helpers/database.js';
import { newKeystore, PASSPHRASE, transfersFrom } from '../payouts/worker-fixture.js';

const CHILD = path.resolve(import.meta.dirname, 'replica-child.ts');
export const LEASE_TTL_MS = 2_000;

export interface Replica {
  name: string;
  pid: number;
  url: string;
  adminUrl: string;
  child: ChildProcess;
  exited: Promise<void>;
  /** Everything the process wrote (its JSON log lines and the READY line). */
  logs(): string;
  /** Its log lines as objects (the READY line and anything not JSON left out). */
  entries(): Record<string, unknown>[];
}

export interface Spawned {
  name: string;
  /** Tells the pre-warmed process to build the app and listen; resolves once it does. */
  start(): Promise<Replica>;
}

export interface Cluster {
  /** DATABASE_URL of the cluster's database (for the CLI). */
  url: string;
  database: Database;
  db: Db;
  devnet: Devnet;
  hotAddress: string;
  merchantId: string;
  apiKey: string;
  /** A second key of the same merchant (tests that revoke one). */
  secondKey(): Promise<string>;
  /** A replica process, loading its modules now; `extraEnv` on top of the cluster's. */
  spawn(name: string, extraEnv?: Record<string, string>): Spawned;
  /** The pid in the live lease row (by the server's time), or null when none is live. */
  holderPid(): Promise<number | null>;
  close(): Promise<void>;
}

export interface ClusterOptions {
  devnet?: DevnetOptions;
  /** Cluster-wide extra environment of every replica. */
  env?: Record<string, string>;
}

export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const dir = tempDir('paygate-replicas-');
  const children: ChildProcess[] = [];
  let server: TestPostgres | null = null;
  let database: Database | null = null;
  let devnet: Devnet | null = null;
  const close = async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await Promise.all(children.map((c) => (c.exitCode === null && c.signalCode === null ? once(c) : undefined)));
    await database?.close();
    await server?.drop();
    await devnet?.close();
  };
  try {
    const [pg, dn, ks] = await Promise.all([
      createPostgresDatabase(),
      startDevnet({ blockTimeMs: 500, solidLag: 2, ...opts.devnet }),
      newKeystore(dir),
    ]);
    server = pg;
    devnet = dn;
    const env: Record<string, string> = {
      DATABASE_URL: pg.url,
      DATABASE_POOL_SIZE: '5',
      WALLET_KEYSTORE: ks.keystore,
      WALLET_PASSPHRASE: PASSPHRASE,
      TRON_NETWORK: 'devnet',
      TRON_FULL_NODE_URL: dn.url,
      PORT: '0',
      ADMIN_PORT: '0',
      CABINET_PORT: '0',
      PAY_PORT: '0',
      WORKER_LEASE_TTL: `${LEASE_TTL_MS / 1000}s`,
      LOG_LEVEL: 'info',
      ...opts.env,
    };
    const spawn = (name: string, extraEnv: Record<string, string> = {}): Spawned => {
      const child = spawnChild({ ...env, ...extraEnv });
      children.push(child);
      return { name, start: () => go(name, child) };
    };
    database = openDatabase(pg.url, { poolSize: 4 });
    const db = database.db;
    await migrateToLatest(db);
    const { merchant, apiKey } = await approvedMerchantWithKey(db, systemClock, 'test', { name: 'Replica shop' });
    const merchantId = merchant.merchant_id;
    return {
      url: pg.url,
      database,
      db,
      devnet: dn,
      hotAddress: ks.hotAddress,
      merchantId,
      apiKey,
      secondKey: async () => (await issueKey(db, systemClock, 'test', merchantId, TEST_HASH_COST)).api_key,
      spawn,
      async holderPid() {
        const lease = await liveLease(db, systemClock);
        return lease?.live ? Number(lease.row.holder.split(':')[1]) : null;
      },
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}

const once = (c: ChildProcess) => new Promise<void>((r) => c.once('exit', () => r()));

function spawnChild(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', CHILD], {
    env: { ...process.env, ...env, CRASH_CHILD_WAIT: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

function go(name: string, child: ChildProcess): Promise<Replica> {
  let text = '';
  const exited =
    child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child).then(() => undefined);
  child.stderr!.on('data', (d) => (text += String(d)));
  const lines = createInterface({ input: child.stdout! });
  return new Promise<Replica>((resolve, reject) => {
    lines.on('line', (line) => {
      text += `${line}\n`;
      const m = /^READY (\S+) (\S+)$/.exec(line);
      if (!m) return;
      resolve({
        name,
        pid: child.pid as number,
        url: m[1] as string,
        adminUrl: m[2] as string,
        child,
        exited,
        logs: () => text,
        entries: () =>
          text
            .split('\n')
            .filter((l) => l.startsWith('{'))
            .map((l) => JSON.parse(l) as Record<string, unknown>),
      });
    });
    void exited.then(() => reject(new Error(`replica ${name} exited before it listened: ${text.slice(-3000)}`)));
    child.stdin!.end('go\n');
  });
}

/** Whether `pid` is stopped (SIGSTOP): state T in /proc. */
export function isStopped(pid: number): boolean {
  try {
    // The state follows the command name, which is in parentheses and may hold spaces.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('T');
  } catch {
    return false;
  }
}

/** The lines of `replica`'s log whose msg contains `text`. */
export function logged(replica: Replica, text: string): Record<string, unknown>[] {
  return replica.entries().filter((e) => String(e.msg ?? '').includes(text));
}

/** `paygate_worker_lease_held` of a replica's /metrics: 1 while it runs the background work. */
export async function holdsLease(replica: Replica): Promise<boolean> {
  const text = await (await fetch(`${replica.adminUrl}/metrics`)).text();
  return /^paygate_worker_lease_held 1$/m.test(text);
}

/**
 * What the chain holds against the payouts (empty = exactly once): every transaction of the hot
 * wallet on chain belongs to a payout, every confirmed payout has one successful transfer of its
 * amount to its address, and there are as many successful transfers as confirmed payouts.
 */
export async function payoutsAgainstChain(c: Cluster): Promise<string[]> {
  const rows = await c.db.selectFrom('payouts').selectAll().execute();
  const onChain = transfersFrom(c.devnet, c.hotAddress);
  const byTxid = new Map(onChain.map((t) => [t.txid, t]));
  const ours = new Set(rows.map((r) => r.tx_hash));
  const problems: string[] = [];
  for (const t of onChain) if (!ours.has(t.txid)) problems.push(`transaction ${t.txid} belongs to no payout`);
  for (const r of rows.filter((x) => x.status === 'confirmed')) {
    const t = r.tx_hash ? byTxid.get(r.tx_hash) : undefined;
    if (!t || t.ret !== 'SUCCESS') problems.push(`confirmed payout ${r.id} has no successful transfer`);
    else if (t.amount !== BigInt(r.amount) || t.to !== TronWeb.address.toHex(r.to_address).toLowerCase())
      problems.push(`payout ${r.id}: the chain sent ${t.amount} to ${t.to}`);
  }
  const succeeded = onChain.filter((t) => t.ret === 'SUCCESS').length;
  const confirmed = rows.filter((x) => x.status === 'confirmed').length;
  if (succeeded !== confirmed) problems.push(`${succeeded} successful transfers for ${confirmed} confirmed payouts`);
  return problems;
}

/** The cluster's merchant credited 100 USDT and a new address whitelisted for payouts at once. */
export async function payoutDestination(c: Pick<Cluster, 'db' | 'merchantId'>): Promise<string> {
  const catalog = loadCatalog('devnet');
  const to = TronWeb.address.fromPrivateKey(randomBytes(32).toString('hex')) as string;
  await creditMerchant(c.db, systemClock, 'test', catalog, c.merchantId, {
    asset: 'USDT_TRON',
    amount: '100',
    memo: 'seed',
  });
  await addToWhitelist(c.db, systemClock, 'test', catalog, c.merchantId, {
    asset: 'USDT_TRON',
    address: to,
    delay: '0',
  });
  return to;
}

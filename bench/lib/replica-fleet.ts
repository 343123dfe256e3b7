/**
 * The pieces bench/replicas.ts starts and prepares: a fresh database of either engine (a SQLite
 * file in a temp dir, a new PostgreSQL database on BENCH_POSTGRES_URL's server), the operator's
 * setup on it as the CLI does it (schema, wallet, an approved merchant, an API key), `serve`
 * replicas in processes of their own (bench/replicas-server.ts), and the invoices to read.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import type { ReplicaInfo } from '../replicas-server.js';
import { systemClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { approvedMerchantWithKey } from '../../src/keys/service.js';
import { SERVE_NODE_FLAGS } from '../../src/operations/heap.js';
import { initWallet } from '../../src/wallet/service.js';
import { startChild, stopChild } from './child.js';

/** The PostgreSQL server the bench creates its database on (a role allowed to create databases). */
export const POSTGRES_ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PASSPHRASE = 'benchmark passphrase';

export interface BenchDatabase {
  url: string;
  /** The environment every replica on this database shares. */
  env: Record<string, string>;
  key: string;
  drop(): Promise<void>;
}

export async function onAdmin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  try {
    await c.connect();
  } catch (e) {
    throw new Error(
      `PostgreSQL is not reachable at ${POSTGRES_ADMIN_URL} (${(e as Error).message}): start it or set BENCH_POSTGRES_URL`,
    );
  }
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/**
 * A fresh database (`engine` sqlite: a file in `dir`; postgres: a new database) with the wallet,
 * an approved merchant and its key, as `paygate init`, `merchant create/approve` and `key issue`
 * leave it before the first `serve`.
 */
export async function prepareDatabase(
  engine: 'sqlite' | 'postgres',
  dir: string,
  common: Record<string, string>,
): Promise<BenchDatabase> {
  let url = path.join(dir, 'bench.db');
  let drop = async () => {};
  if (engine === 'postgres') {
    const name = `paygate_bench_${process.pid}_${randomBytes(4).toString('hex')}`;
    await onAdmin((c) => c.query(`create database "${name}"`));
    const u = new URL(POSTGRES_ADMIN_URL);
    u.pathname = `/${name}`;
    url = u.toString();
    drop = () => onAdmin((c) => c.query(`drop database if exists "${name}" with (force)`)).then(() => {});
  }
  const env = {
    ...common,
    DATABASE_URL: url,
    WALLET_KEYSTORE: path.join(dir, `keystore-${engine}.json`),
    WALLET_PASSPHRASE: PASSPHRASE,
  };
  const config = parseConfig({ ...env, TRON_NETWORK: 'devnet' });
  const setup = openDatabase(config.database);
  try {
    await migrateToLatest(setup.db);
    await initWallet(setup.db, systemClock, 'bench', config);
    const { apiKey } = await approvedMerchantWithKey(setup.db, systemClock, 'bench', { name: 'Bench shop' });
    await setup.close();
    return { url, env, key: apiKey, drop };
  } catch (e) {
    await setup.close().catch(() => {});
    await drop();
    throw e;
  }
}

export interface Replica {
  info: ReplicaInfo;
  child: ChildProcess;
}

/** One `serve` replica on `db`, launched as serve is (heap flag). */
export async function startReplica(db: BenchDatabase, env: Record<string, string> = {}): Promise<Replica> {
  const { info, child } = await startChild<ReplicaInfo>('replicas-server.ts', {
    env: { ...db.env, ...env },
    nodeArgs: [...SERVE_NODE_FLAGS],
  });
  return { info, child };
}

export const stopReplica = (r: Replica): Promise<void> => stopChild(r.child);

/**
 * `count` invoices created through `replica`, one at a time (a 503, e.g. a serializable
 * transaction that kept losing its race on PostgreSQL, is asked again after a pause); their ids.
 */
export async function invoicesToRead(replica: Replica, key: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    for (let attempt = 1; ; attempt++) {
      const res = await fetch(`${replica.info.url}/v1/invoices`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ order_id: `read-${i}`, asset: 'USDT_TRON', amount: '10', expires_in: 3600 }),
      });
      if (res.status === 201 || res.status === 200) {
        ids.push(((await res.json()) as { invoice_id: string }).invoice_id);
        break;
      }
      if (res.status !== 503 || attempt >= 10)
        throw new Error(`invoice setup failed: ${res.status} ${await res.text()}`);
      await res.text();
      await new Promise((r) => setTimeout(r, 100 * attempt));
    }
  }
  return ids;
}

/**
 * deploy/nginx/paygate-replicas.conf for real: nginx (nginx-harness.ts) in front of two `serve`
 * replicas in processes of their own (replica-child.ts), configured from
 * deploy/replicas/paygate-{1,2}.env.example with only the database, the ports and the node
 * rewritten, on one fresh PostgreSQL database, with the devnet as their TRON node. Requests through
 * nginx reach both replicas; with the lease holder SIGKILLed they still succeed and the other
 * replica takes the background work over; the admin console never answers through nginx.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';
import { issueKey } from '../../src/keys/service.js';
import { changeMerchant, createMerchant } from '../../src/merchants/service.js';
import { currentLease } from '../../src/runtime/lease.js';
import { initWallet } from '../../src/wallet/service.js';
import { TEST_HASH_COST, tempDir } from '../helpers/app.js';
import { createPostgresDatabase, type TestPostgres } from '../helpers/database.js';
import { ServeChildren, type ServeChild } from '../helpers/serve-child.js';
import { CHEAP_SCRYPT, TEST_MNEMONIC, TEST_PASSPHRASE, newInvoice } from '../invoices/fixture.js';
import { freePort, nginxBin, type RunningNginx, startNginx } from './nginx-harness.js';

const DEPLOY = path.resolve(import.meta.dirname, '../../deploy');
const CONF = path.join(DEPLOY, 'nginx/paygate-replicas.conf');
const EXAMPLES = [1, 2].map((n) => path.join(DEPLOY, `replicas/paygate-${n}.env.example`));
const example = (file: string) => parseEnv(readFileSync(file, 'utf8')) as Record<string, string>;
/** The `server HOST:PORT …;` lines of the shipped upstream block, in order. */
const upstreamServers = (site: string) =>
  [...(/upstream paygate_replicas \{([\s\S]*?)\n\}/.exec(site)?.[1] ?? '').matchAll(/^\s*server (\S+)/gm)].map(
    (m) => m[1],
  );

if (!nginxBin)
  console.warn(
    'SKIPPED test/deploy/nginx-replicas.test.ts (nginx part): nginx is not installed (apt-get install -y nginx; .ci/run installs it)',
  );

describe('the replica examples (deploy/replicas/, deploy/nginx/paygate-replicas.conf)', () => {
  it('share the database, the keystore and the lease time, differ in their ports, and are the upstream nginx lists', () => {
    const [one, two] = EXAMPLES.map(example) as [Record<string, string>, Record<string, string>];
    for (const name of ['DATABASE_URL', 'DATABASE_POOL_SIZE', 'REDIS_URL', 'WORKER_LEASE_TTL', 'WALLET_KEYSTORE'])
      expect(two[name], name).toBe(one[name]);
    expect(one.DATABASE_URL).toMatch(/^postgres:\/\//);
    const differ = Object.keys({ ...one, ...two }).filter((k) => one[k] !== two[k]);
    expect(differ.sort()).toEqual(['ADMIN_PORT', 'CABINET_PORT', 'PAY_PORT', 'PORT']);
    // Each parses as serve reads it, and the four listeners of the two replicas are eight ports.
    const configs = [one, two].map((env) => parseConfig(env));
    for (const c of configs) expect(c.database.engine).toBe('postgres');
    const ports = configs.flatMap((c) => [c.port, c.adminPort, c.cabinetPort, c.payPort]);
    expect(new Set(ports).size).toBe(8);
    // nginx sends /v1 to exactly the public listeners, never to an admin or cabinet port.
    expect(upstreamServers(readFileSync(CONF, 'utf8'))).toEqual(configs.map((c) => `${c.host}:${c.port}`));
  });
});

describe.skipIf(!nginxBin)('nginx in front of two replicas on PostgreSQL (paygate-replicas.conf)', () => {
  let devnet: Devnet;
  let pg: TestPostgres;
  let database: Database;
  let nginx: RunningNginx;
  let key: string;
  let serves: ServeChildren;
  const replicas: { serve: ServeChild; port: number; admin: string }[] = [];

  const metric = async (admin: string, pattern: RegExp): Promise<number> => {
    const text = await (await fetch(`${admin}/metrics`)).text();
    return Number(pattern.exec(text)?.[1] ?? 0);
  };
  const invoiceReads = (admin: string) =>
    metric(
      admin,
      /^paygate_http_requests_total\{listener="v1",method="GET",route="\/v1\/invoices\/:id",status="200"\} (\d+)/m,
    );
  const createViaNginx = async () => {
    const r = await nginx.viaHttps(
      '/v1/invoices',
      { method: 'POST', headers: { 'X-Api-Key': key, 'Content-Type': 'application/json' } },
      JSON.stringify(newInvoice()),
    );
    expect(r.status, r.body).toBe(201);
    return JSON.parse(r.body).invoice_id as string;
  };
  const readViaNginx = async (id: string) => {
    const r = await nginx.viaHttps(`/v1/invoices/${id}`, { headers: { 'X-Api-Key': key } });
    expect(r.status, r.body).toBe(200);
    expect(JSON.parse(r.body).invoice_id).toBe(id);
  };

  beforeAll(async () => {
    devnet = await startDevnet({ blockTimeMs: 500 });
    pg = await createPostgresDatabase();
    database = openDatabase(pg.url);
    await migrateToLatest(database.db);
    const dir = tempDir('paygate-replicas-');
    const shared = {
      DATABASE_URL: pg.url,
      CABINET_PORT: '0',
      PAY_PORT: '0',
      TRON_NETWORK: 'devnet',
      TRON_FULL_NODE_URL: devnet.url,
      WALLET_KEYSTORE: path.join(dir, 'keystore.json'),
      WALLET_PASSPHRASE: TEST_PASSPHRASE,
      // The shortest lease the configuration accepts: the takeover below comes within seconds.
      WORKER_LEASE_TTL: '2s',
      LOG_LEVEL: 'silent',
    };
    // Operator setup, as `paygate init`, `merchant create/approve` and `key issue` do it.
    await initWallet(database.db, systemClock, 'test', parseConfig(shared), {
      mnemonic: TEST_MNEMONIC,
      scrypt: CHEAP_SCRYPT,
    });
    const merchant = await createMerchant(database.db, systemClock, 'test', { name: 'Replicated shop' });
    await changeMerchant(database.db, systemClock, 'test', merchant.merchant_id, 'approve');
    key = (await issueKey(database.db, systemClock, 'test', merchant.merchant_id, TEST_HASH_COST)).api_key;

    const ports = [await freePort(), await freePort()];
    const admins = [await freePort(), await freePort()];
    let spawned = 0;
    // Spawned in order: the first start() spawns replica 1 and pre-warms replica 2, the second
    // starts it (and pre-warms a third that never gets its go).
    serves = new ServeChildren(new URL('./replica-child.ts', import.meta.url).pathname, () => {
      const i = spawned++ % 2;
      return {
        ...example(EXAMPLES[i] as string),
        ...shared,
        PORT: String(ports[i]),
        ADMIN_PORT: String(admins[i]),
        // Rate limits stay in each process: a Redis shared with the tests running beside this
        // one would count their requests too.
        REDIS_URL: undefined,
      };
    });
    for (let i = 0; i < 2; i++)
      replicas.push({
        serve: await serves.start(),
        port: ports[i] as number,
        admin: `http://127.0.0.1:${admins[i]}`,
      });

    const [a, b] = upstreamServers(readFileSync(CONF, 'utf8'));
    nginx = await startNginx(CONF, (site) =>
      site
        .replace(`server ${a} `, `server 127.0.0.1:${ports[0]} `)
        .replace(`server ${b} `, `server 127.0.0.1:${ports[1]} `),
    );
  });

  afterAll(async () => {
    serves?.killAll();
    await nginx?.stop();
    await database?.close();
    await pg?.drop();
    await devnet?.close();
  });

  it('spreads /v1 over both replicas, which answer from the one database', async () => {
    const ids = [await createViaNginx(), await createViaNginx()];
    const before = await Promise.all(replicas.map((r) => invoiceReads(r.admin)));
    for (let i = 0; i < 10; i++) await readViaNginx(ids[i % 2] as string);
    const after = await Promise.all(replicas.map((r) => invoiceReads(r.admin)));
    const served = after.map((n, i) => n - (before[i] as number));
    // Round robin: each replica's own metrics count reads that nginx sent it.
    expect(served[0]).toBeGreaterThan(0);
    expect(served[1]).toBeGreaterThan(0);
    expect((served[0] as number) + (served[1] as number)).toBe(10);
  });

  it('answers 404 for the admin console, the cabinet, health and metrics, which the replicas serve elsewhere', async () => {
    for (const p of ['/admin/v1/merchants', '/admin/v1', '/cabinet/v1', '/healthz', '/readyz', '/metrics', '/']) {
      const r = await nginx.viaHttps(p, { headers: { Authorization: 'Bearer x' } });
      expect(r.status, p).toBe(404);
      expect(JSON.parse(r.body).error.code, p).toBe('route_not_found');
      // paygate sets X-Request-Id on every answer: these never reached a replica.
      expect(r.headers['x-request-id'], p).toBeUndefined();
    }
    // The console is there, on each replica's admin listener: it asks for an operator token.
    for (const r of replicas) expect((await fetch(`${r.admin}/admin/v1/merchants`)).status).toBe(401);
  });

  it('with the lease holder SIGKILLed, every request through nginx still succeeds and the other replica takes the background work over', async () => {
    await vi.waitFor(
      async () => {
        const lease = await currentLease(database.db);
        expect(lease && lease.expires_at > new Date().toISOString()).toBe(true);
      },
      { timeout: 15_000, interval: 100 },
    );
    const holder = (await currentLease(database.db))!.holder;
    const victim = replicas.find((r) => holder.includes(`:${r.serve.child.pid}:`));
    const survivor = replicas.find((r) => r !== victim);
    expect(victim, holder).toBeDefined();
    expect(await metric(victim!.admin, /^paygate_worker_lease_held (\d+)/m)).toBe(1);
    expect(await metric(survivor!.admin, /^paygate_worker_lease_held (\d+)/m)).toBe(0);

    victim!.serve.child.kill('SIGKILL');
    await victim!.serve.exited;
    // Creations and reads right after the kill: a connection nginx tries on the dead replica is
    // refused before anything was sent, and the request goes to the survivor.
    for (let i = 0; i < 4; i++) {
      const id = await createViaNginx();
      await readViaNginx(id);
      await readViaNginx(id);
    }
    await vi.waitFor(async () => expect(await metric(survivor!.admin, /^paygate_worker_lease_held (\d+)/m)).toBe(1), {
      timeout: 20_000,
      interval: 200,
    });
    const lease = await currentLease(database.db);
    expect(lease!.holder).toContain(`:${survivor!.serve.child.pid}:`);
    // The survivor's background work runs: its chain watcher records the blocks the devnet makes.
    const cursor = async () =>
      (await database.db.selectFrom('chain_cursor').select('updated_at').executeTakeFirst())?.updated_at ?? '';
    await vi.waitFor(async () => expect((await cursor()) > lease!.acquired_at).toBe(true), {
      timeout: 20_000,
      interval: 200,
    });
  });
});

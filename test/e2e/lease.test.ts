/**
 * Two `serve` processes on one database (docs/adr/0023-the-worker-lease.md): both answer /v1, only
 * the lease holder runs the background work, and the other takes over once the holder dies without
 * releasing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { DEV_BIN, runCli } from '../helpers/cli.js';
import { servedUrl } from '../helpers/serve-log.js';
import { api } from '../helpers/http.js';
import { tempDir } from '../helpers/app.js';
import { testDatabaseUrl, withDatabase } from '../helpers/database.js';

const dir = tempDir();
const database = await testDatabaseUrl(path.join(dir, 'paygate.db'));
const env = {
  DATABASE_URL: database.url,
  WALLET_KEYSTORE: path.join(dir, 'keystore.json'),
  WALLET_PASSPHRASE: 'correct horse battery staple',
  TRON_NETWORK: 'devnet',
  // No node runs here: the workers' node calls fail and back off, which is all this test needs.
  TRON_FULL_NODE_URL: 'http://127.0.0.1:9',
  PORT: '0',
  WORKER_LEASE_TTL: '2s',
  ADMIN_PORT: '0',
  CABINET_PORT: '0',
  PAY_PORT: '0',
};
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await database.drop();
});

async function serve(): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, [DEV_BIN, 'serve'], {
    env: { ...process.env, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const base = await new Promise<string>((resolve, reject) => {
    lines.on('line', (l) => {
      const url = servedUrl(l);
      if (url) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
  return { child, base };
}

async function leaseHolderPid(): Promise<number | null> {
  const row = await withDatabase(env.DATABASE_URL, (db) =>
    db.selectFrom('worker_lease').select(['holder', 'expires_at']).where('id', '=', 1).executeTakeFirst(),
  );
  if (!row || row.expires_at <= new Date().toISOString()) return null;
  return Number(row.holder.split(':')[1]);
}

describe('two serve processes on one database', () => {
  it('both serve /v1; one holds the worker lease; the other takes over when the holder dies', async () => {
    expect((await runCli(['init', '--json'], env)).code).toBe(0);
    const id = (await runCli(['merchant', 'create', '--name', 'Shop', '--json'], env)).json.merchant_id as string;
    await runCli(['merchant', 'approve', id], env);
    const key = (await runCli(['key', 'issue', id, '--json'], env)).json.api_key as string;

    const a = await serve();
    await vi.waitFor(async () => expect(await leaseHolderPid()).toBe(a.child.pid), { timeout: 10_000, interval: 100 });
    const b = await serve();
    for (const [i, s] of [a, b].entries()) {
      const r = await api(s.base, '/v1/invoices', {
        key,
        body: { order_id: `o-${i}`, asset: 'USDT_TRON', amount: '5', expires_in: 600 },
      });
      expect(r.status).toBe(201);
    }
    // Several lease periods later the holder is still the first process: B never took it.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await leaseHolderPid()).toBe(a.child.pid);

    a.child.kill('SIGKILL');
    await vi.waitFor(async () => expect(await leaseHolderPid()).toBe(b.child.pid), { timeout: 15_000, interval: 200 });
    const exited = new Promise<number | null>((resolve) => b.child.once('exit', resolve));
    b.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    // A clean stop gives the lease up at once.
    expect(await leaseHolderPid()).toBeNull();
  }, 60_000);
});

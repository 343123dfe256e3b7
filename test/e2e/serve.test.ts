/** `paygate serve` as an operator starts it: wallet checks first, then /v1 until SIGINT. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVE_NODE_FLAGS } from '../../src/operations/heap.js';
import { DEV_BIN, runCli, runCliProcess } from '../helpers/cli.js';
import { servedUrl } from '../helpers/serve-log.js';
import { api } from '../helpers/http.js';
import { tempDir } from '../helpers/app.js';
import { ON_POSTGRES, testDatabaseUrl } from '../helpers/database.js';

const dir = tempDir();
const database = await testDatabaseUrl(path.join(dir, 'paygate.db'));
const env = {
  DATABASE_URL: database.url,
  WALLET_KEYSTORE: path.join(dir, 'keystore.json'),
  WALLET_PASSPHRASE: 'correct horse battery staple',
  TRON_NETWORK: 'devnet',
  PORT: '0',
  ADMIN_PORT: '0',
  CABINET_PORT: '0',
  PAY_PORT: '0',
};
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await database.drop();
});

describe('paygate serve', () => {
  it('refuses to start without a keystore, or with a wrong passphrase', async () => {
    const none = await runCliProcess(['serve', '--json'], env);
    expect(none.code).not.toBe(0);
    expect(none.json.error.code).toBe('invalid_state');
    expect(none.json.error.message).toContain('paygate init');

    const init = await runCli(['init', '--json'], env);
    expect(init.code).toBe(0);
    const wrong = await runCliProcess(['serve', '--json'], { ...env, WALLET_PASSPHRASE: 'not the passphrase at all' });
    expect(wrong.code).not.toBe(0);
    expect(wrong.json.error.message).not.toContain(env.WALLET_PASSPHRASE);
  });

  it('serves /v1 with the right passphrase and stops on SIGINT', async () => {
    const created = await runCli(['merchant', 'create', '--name', 'Shop', '--json'], env);
    const id = created.json.merchant_id as string;
    await runCli(['merchant', 'approve', id], env);
    const key = (await runCli(['key', 'issue', id, '--json'], env)).json.api_key as string;

    const child = spawn(process.execPath, [DEV_BIN, 'serve'], {
      env: { ...process.env, ...env, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines = createInterface({ input: child.stdout });
    const base = await new Promise<string>((resolve, reject) => {
      lines.on('line', (l) => {
        const url = servedUrl(l);
        if (url) resolve(url);
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
    });
    const r = await api(base, '/v1/invoices', {
      key,
      body: { order_id: 'o-1', asset: 'USDT_TRON', amount: '5', expires_in: 600 },
    });
    expect(r.status).toBe(201);
    expect(r.body.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  /** Starts serve with `nodeArgs`, returns its log entries up to and including 'paygate serving /v1', stops it. */
  async function startLog(nodeArgs: readonly string[]): Promise<Record<string, unknown>[]> {
    const child = spawn(process.execPath, [...nodeArgs, DEV_BIN, 'serve'], {
      env: { ...process.env, ...env, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines = createInterface({ input: child.stdout });
    const entries: Record<string, unknown>[] = [];
    await new Promise<void>((resolve, reject) => {
      lines.on('line', (l) => {
        if (!l.startsWith('{')) return;
        const entry = JSON.parse(l) as Record<string, unknown>;
        entries.push(entry);
        if (entry.msg === 'paygate serving /v1') resolve();
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    return entries;
  }

  /** Every stdout line of one serve run (started, then SIGINT), and its exit code. */
  async function stdoutOf(args: string[]): Promise<{ lines: string[]; code: number | null }> {
    const child = spawn(process.execPath, [DEV_BIN, 'serve', ...args], {
      env: { ...process.env, ...env, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const closed = new Promise<void>((resolve) => child.stdout.once('close', () => resolve()));
    createInterface({ input: child.stdout }).on('line', (l) => {
      lines.push(l);
      if (servedUrl(l)) child.kill('SIGINT');
    });
    const code = await exited;
    await closed;
    return { lines, code };
  }

  it('with stdout piped (a collector, the journal) writes only JSON lines, from start to stop; --json too', async () => {
    for (const args of [[], ['--json']]) {
      const { lines, code } = await stdoutOf(args);
      expect(code).toBe(0);
      const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(entries.map((e) => e.msg)).toEqual(expect.arrayContaining(['paygate serving /v1', 'stopped']));
      expect(lines.some((l) => l.startsWith('paygate serving'))).toBe(false);
      // With --json the command's result, once stopped, is one more line (not a log entry).
      const results = entries.filter((e) => e.level === undefined);
      expect(results).toEqual(
        args.length > 0 ? [expect.objectContaining({ url: expect.stringMatching(/^http:/) })] : [],
      );
    }
  }, 120_000);

  it('logs at start the durability settings its live database connections report', async () => {
    const started = (await startLog(SERVE_NODE_FLAGS)).find((e) => e.msg === 'paygate serving /v1') as Record<
      string,
      unknown
    >;
    if (ON_POSTGRES) {
      // The server's own setting: a COMMIT returns once its WAL is flushed.
      expect(started.postgres).toMatchObject({ synchronous_commit: 'on', pool_size: 10 });
      return;
    }
    const durable = { journal_mode: 'wal', synchronous: 2, foreign_keys: 1, busy_timeout: 20 };
    expect(started.sqlite).toEqual({ writer: durable, reader: durable });
  });

  it('warns when started without a heap limit, and only then', async () => {
    const heapWarnings = (entries: Record<string, unknown>[]) =>
      entries.filter((e) => String(e.msg).startsWith(`started without ${SERVE_NODE_FLAGS.join(' ')}`));
    const unset = heapWarnings(await startLog([]));
    expect(unset).toHaveLength(1);
    expect(unset[0]).toMatchObject({ level: 40, heapLimitMb: expect.any(Number) });
    expect(heapWarnings(await startLog(SERVE_NODE_FLAGS))).toEqual([]);
  });
});

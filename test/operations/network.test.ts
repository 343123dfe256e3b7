/**
 * The database belongs to one chain: `init` and `serve` read the node's genesis block at first
 * contact and record it; a node of another chain is refused at start with both ids named; a
 * mainnet or Nile database takes only that network's genesis block; the workers of an app whose
 * node was not checked at start check it before they use it.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTronClient } from '../../src/chain/tronweb-client.js';
import { ManualClock } from '../../src/clock.js';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';
import { readCursor } from '../../src/watcher/store.js';
import { startTestApp, tempDir } from '../helpers/app.js';
import { DEV_BIN, runCli } from '../helpers/cli.js';
import { servedUrl } from '../helpers/serve-log.js';
import { testDatabaseUrl } from '../helpers/database.js';

const MAINNET_GENESIS = '00000000000000001ebf88508a03865c71d452e25f4d51194196a1d22b6653dc';

let ours: Devnet;
let other: Devnet;
const genesisOf = (d: Devnet) => d.control.chain.blocks[0]!.id;

beforeAll(async () => {
  ours = await startDevnet({ blockTimeMs: 0 });
  // Another chain: its genesis block is a day older, so its id differs.
  other = await startDevnet({ blockTimeMs: 0, clock: new ManualClock(new Date(Date.now() - 86_400_000)) });
  expect(genesisOf(other)).not.toBe(genesisOf(ours));
});
afterAll(async () => {
  await ours?.close();
  await other?.close();
});

async function envFor(dir: string, node: string, network = 'devnet') {
  return {
    DATABASE_URL: (await testDatabaseUrl(path.join(dir, 'paygate.db'))).url,
    WALLET_KEYSTORE: path.join(dir, 'keystore.json'),
    WALLET_PASSPHRASE: 'correct horse battery staple',
    TRON_NETWORK: network,
    TRON_FULL_NODE_URL: node,
    PORT: '0',
    ADMIN_PORT: '0',
    CABINET_PORT: '0',
    PAY_PORT: '0',
  };
}

/** `serve` as a process: `started` (then stopped) once it printed its banner, else how it exited and its error line. */
function serveOnce(env: Record<string, string>): Promise<{ started: boolean; code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DEV_BIN, 'serve'], {
      env: { ...process.env, ...env, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let started = false;
    child.stderr.on('data', (d) => (stderr += d));
    createInterface({ input: child.stdout }).on('line', (l) => {
      if (!servedUrl(l)) return;
      started = true;
      child.kill('SIGINT');
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ started, code, stderr }));
  });
}

describe('the chain a database belongs to', () => {
  it('init records the devnet genesis block at first contact; serve then refuses a node of another chain, naming both ids', async () => {
    const env = await envFor(tempDir(), ours.url);
    const init = await runCli(['init', '--json'], env);
    expect(init.code, init.stdout + init.stderr).toBe(0);
    expect(init.json.genesis_block_id).toBe(genesisOf(ours));

    const refused = await serveOnce({ ...env, TRON_FULL_NODE_URL: other.url });
    expect(refused.started).toBe(false);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('Error (wrong_network)');
    expect(refused.stderr).toContain(genesisOf(ours));
    expect(refused.stderr).toContain(genesisOf(other));

    // The node of its own chain is served.
    expect((await serveOnce(env)).started).toBe(true);
  });

  it("a mainnet database refuses a node whose genesis block is not mainnet's, before writing the keystore", async () => {
    const env = await envFor(tempDir(), ours.url, 'mainnet');
    const r = await runCli(['init', '--json'], env);
    expect(r.code).toBe(1);
    expect(r.json.error.code).toBe('wrong_network');
    expect(r.json.error.message).toContain(genesisOf(ours));
    expect(r.json.error.message).toContain(MAINNET_GENESIS);
    expect(existsSync(env.WALLET_KEYSTORE)).toBe(false);
  });

  it('the workers of a serve that could not reach the node at start check it before they use it', async () => {
    const dir = tempDir();
    const env = await envFor(dir, ours.url);
    expect((await runCli(['init', '--json'], env)).code).toBe(0);
    const lines: string[] = [];
    const logger = pino(
      { level: 'error' },
      new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }),
    );
    // The default workers, run against the other chain's node.
    const chain = createTronClient({ fullHost: other.url, timeoutMs: 500, retries: 0 });
    const t = await startTestApp({
      chain,
      logger,
      env: { ...env, WALLET_PASSPHRASE: env.WALLET_PASSPHRASE },
      unlockWallet: true,
      workerHost: { renewMs: 50, maxBackoffMs: 100, jobs: [] },
    });
    try {
      await vi.waitFor(
        () => expect(lines.some((l) => l.includes('wrong_network') && l.includes(genesisOf(other)))).toBe(true),
        { timeout: 10_000, interval: 20 },
      );
      // The watcher never started a scan of that chain.
      expect(await readCursor(t.app.services.db)).toBeUndefined();
    } finally {
      await t.close();
      await chain.close?.();
    }
  });
});

/**
 * Chain watcher catch-up and head latency.
 *
 * A devnet (own process) holds BLOCKS mainnet-sized blocks (~300 transactions: USDT transfers with
 * logs, TRX transfers, other calls); the database holds ADDRESSES deposit addresses of which
 * WATCHED have open invoices, each paid once somewhere in the history. Measured in the same run:
 *   fetch+parse: the same requests the watcher makes (block ranges of 100, the infos of every
 *                block with a contract call, 16 in flight), JSON.parse only;
 *   watcher:     ChainWatcher.tick() from the first block until caught up (parse, match, record);
 *   head:        payment block produced → invoice `seen` in the database, with the watcher
 *                looping as in serve (1 s pause at the head).
 * Run: npx tsx bench/watcher.ts [blocks=30000] [addresses=100000] [watched=1000]
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { buildApp } from '../src/app.js';
import { fromHexAddress, toHexAddress } from '../src/chain/address.js';
import { systemClock } from '../src/clock.js';
import { parseConfig } from '../src/config.js';
import { writeTx } from '../src/db/database.js';
import { createInvoice } from '../src/invoices/service.js';
import { changeMerchant, createMerchant } from '../src/merchants/service.js';
import { findMerchant } from '../src/merchants/store.js';
import { initWallet } from '../src/wallet/service.js';
import { ChainWatcher } from '../src/watcher/watcher.js';
import { writeCursor } from '../src/watcher/store.js';
import { cpuSeconds } from './lib/child.js';
import { summary } from './lib/summary.js';

const BLOCKS = Number(process.argv[2] ?? 30_000);
const ADDRESSES = Number(process.argv[3] ?? 100_000);
const WATCHED = Number(process.argv[4] ?? 1_000);
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function mapLimit<T>(items: T[], limit: number, fn: (t: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await fn(items[next++] as T);
    }),
  );
}

async function post(url: string, p: string, body: unknown): Promise<unknown> {
  const res = await fetch(url + p, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return JSON.parse(await res.text());
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'paygate-bench-watcher-'));
  const config = parseConfig({
    ADMIN_PORT: '0',
    CABINET_PORT: '0',
    PAY_PORT: '0',
    DATABASE_URL: path.join(dir, 'db'),
    TRON_NETWORK: 'devnet',
    LOG_LEVEL: 'silent',
    WALLET_KEYSTORE: path.join(dir, 'ks'),
    WALLET_PASSPHRASE: 'bench passphrase, long enough',
    PORT: '0',
    TRON_FULL_NODE_URL: 'http://127.0.0.1:1',
  });
  let app = await buildApp(config, { workers: false });
  const db = app.services.db;
  await initWallet(db, systemClock, 'bench', config, { mnemonic: MNEMONIC, scrypt: { N: 1024, r: 8, p: 1 } });
  const m = await createMerchant(db, systemClock, 'bench', { name: 'Bench shop' });
  await changeMerchant(db, systemClock, 'bench', m.merchant_id, 'approve');
  const merchant = (await findMerchant(db, m.merchant_id))!;

  let t = performance.now();
  const deps = { db, clock: systemClock, catalog: app.services.catalog, allocator: app.services.addresses };
  const invoices: { id: string; address: string }[] = [];
  for (let i = 0; i < WATCHED; i++) {
    const r = await createInvoice(deps, merchant, {
      order_id: `bench-${i}`,
      asset: 'USDT_TRON',
      amount: '10',
      expires_in: 604800,
    });
    invoices.push({ id: r.invoice.invoice_id, address: r.invoice.address });
  }
  const now = new Date().toISOString();
  for (let i = 0; i < ADDRESSES - WATCHED; i += 1000) {
    const rows = Array.from({ length: Math.min(1000, ADDRESSES - WATCHED - i) }, (_, k) => ({
      address: fromHexAddress(`41${randomBytes(20).toString('hex')}`),
      derivation_index: 10_000_000 + i + k,
      merchant_id: merchant.id,
      external_user_id: `filler-${i + k}`,
      created_at: now,
    }));
    await writeTx(db, (trx) => trx.insertInto('deposit_addresses').values(rows).execute());
  }
  // Addresses handed out later take indexes above the fillers (indexes only grow).
  await writeTx(db, (trx) =>
    trx
      .updateTable('wallet')
      .set({ next_index: 10_000_000 + ADDRESSES })
      .execute(),
  );
  console.log(
    `database: ${ADDRESSES} deposit addresses, ${WATCHED} open invoices (${((performance.now() - t) / 1000).toFixed(1)} s)`,
  );

  const payments = invoices.map((inv, i) => ({
    offset: Math.floor(((i + 0.5) * BLOCKS) / WATCHED),
    toHex: toHexAddress(inv.address),
    amount: '10000000',
  }));
  const paymentsFile = path.join(dir, 'payments.json');
  writeFileSync(paymentsFile, JSON.stringify(payments));
  t = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(import.meta.dirname, 'lib/bulk-devnet.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, BULK_BLOCKS: String(BLOCKS), BULK_PAYMENTS: paymentsFile },
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`bulk devnet exited with ${code}`)));
  });
  const node = JSON.parse(line) as { url: string; first: number; last: number };
  console.log(
    `devnet: ${BLOCKS} blocks × ~300 transactions generated in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );

  try {
    await app.stop();
    app = await buildApp({ ...config, tronFullNodeUrl: node.url }, { workers: false });
    const s = app.services;
    const blocks = node.last - node.first + 1;

    // CPU seconds of this process (all threads) and of the node's, to see which one bounds a phase.
    const cpu = () => ({
      self: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
      node: cpuSeconds(child.pid as number),
    });
    const cpuLine = (c0: ReturnType<typeof cpu>, n: number) => {
      const c1 = cpu();
      return `CPU per block: watcher process ${(((c1.self - c0.self) * 1000) / n).toFixed(2)} ms, node ${(((c1.node - c0.node) * 1000) / n).toFixed(2)} ms`;
    };
    // 1. Fetch + JSON.parse only: the same requests.
    let c0 = cpu();
    t = performance.now();
    for (let from = node.first; from <= node.last; from += 100) {
      const to = Math.min(node.last + 1, from + 100);
      await post(node.url, '/wallet/getblockbylimitnext', { startNum: from, endNum: to });
      const nums = Array.from({ length: to - from }, (_, k) => from + k);
      await mapLimit(
        nums,
        16,
        async (n) => void (await post(node.url, '/wallet/gettransactioninfobyblocknum', { num: n })),
      );
    }
    const fetchMs = performance.now() - t;
    console.log(
      `fetch+parse:  ${blocks} blocks in ${(fetchMs / 1000).toFixed(1)} s = ${Math.round(blocks / (fetchMs / 1000))} blocks/s; ${cpuLine(c0, blocks)}`,
    );

    // 2. The watcher from the first block until caught up.
    await writeTx(s.db, (trx) =>
      writeCursor(trx, {
        next_block: node.first,
        last_block_time: null,
        head_number: node.last,
        solid_number: 0,
        updated_at: now,
      }),
    );
    const watcher = new ChainWatcher(s, null);
    // What an API request would wait for while the watcher catches up on the same event loop.
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    c0 = cpu();
    const elu = performance.eventLoopUtilization();
    t = performance.now();
    while (await watcher.tick()) {
      /* catching up */
    }
    const watchMs = performance.now() - t;
    const watchCpu = `${cpuLine(c0, blocks)} (of which the event loop ${(performance.eventLoopUtilization(elu).active / blocks).toFixed(2)} ms)`;
    loopDelay.disable();
    const found = await s.db
      .selectFrom('deposits')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const seen = await s.db
      .selectFrom('invoices')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '!=', 'created')
      .executeTakeFirstOrThrow();
    console.log(
      `watcher:      ${blocks} blocks in ${(watchMs / 1000).toFixed(1)} s = ${Math.round(blocks / (watchMs / 1000))} blocks/s; ${found.n} deposits, ${seen.n} invoices past created; ${watchCpu}`,
    );
    console.log(
      `event loop delay during catch-up: p50 ${(loopDelay.percentile(50) / 1e6).toFixed(1)} ms, p99 ${(loopDelay.percentile(99) / 1e6).toFixed(1)} ms, max ${(loopDelay.max / 1e6).toFixed(1)} ms`,
    );
    const ratio = watchMs / fetchMs;
    const day = (28_800 / blocks) * (watchMs / 1000);
    console.log(
      `ratio watcher / fetch+parse: ${ratio.toFixed(2)} (target < 1.5); a day of mainnet (28,800 blocks) ≈ ${day.toFixed(0)} s (target ≤ 240 s)`,
    );
    summary({ metric: 'watcher catch-up', value: `${Math.round(blocks / (watchMs / 1000))} blocks/s` });
    summary({ metric: 'watcher / fetch+parse', value: ratio.toFixed(2), target: '< 1.5', ok: ratio < 1.5 });
    summary({
      metric: 'a day of mainnet caught up in',
      value: `${day.toFixed(0)} s`,
      target: '≤ 240 s',
      ok: day <= 240,
    });
    summary({ metric: 'event loop p99 during catch-up', value: `${(loopDelay.percentile(99) / 1e6).toFixed(0)} ms` });

    // 3. Head latency with the watcher looping as in serve.
    let running = true;
    const loop = (async () => {
      while (running) {
        try {
          if (!(await watcher.tick())) await sleep(watcher.intervalMs);
        } catch (err) {
          console.error('tick failed:', err);
          await sleep(watcher.intervalMs);
        }
      }
    })();
    const latencies: number[] = [];
    for (let i = 0; i < 10; i++) {
      const inv = await createInvoice({ ...deps, db: s.db }, merchant, {
        order_id: `head-${i}`,
        asset: 'USDT_TRON',
        amount: '1',
        expires_in: 604800,
      });
      await post(node.url, '/devnet/pay', { to: inv.invoice.address, asset: 'USDT_TRON', amount: '1000000' });
      await sleep(Math.random() * 1000);
      await post(node.url, '/devnet/mine', { blocks: 1 });
      const produced = performance.now();
      for (;;) {
        // Bulk history runs ahead of the wall clock: any status past `created` means the deposit was seen.
        const row = await s.db
          .selectFrom('invoices')
          .select('status')
          .where('id', '=', inv.invoice.invoice_id)
          .executeTakeFirstOrThrow();
        if (row.status !== 'created') break;
        await sleep(5);
      }
      latencies.push(performance.now() - produced);
    }
    running = false;
    await loop;
    latencies.sort((a, b) => a - b);
    console.log(
      `head: block produced → invoice seen: median ${Math.round(latencies[4]!)} ms, max ${Math.round(latencies[9]!)} ms (target < 3000 ms, one block interval)`,
    );
    summary({
      metric: 'payment block → invoice seen (median)',
      value: `${Math.round(latencies[4]!)} ms`,
      target: '< 3000 ms',
      ok: latencies[4]! < 3000,
    });
  } finally {
    child.kill('SIGTERM');
    await app.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();

/** Forks above the solid height, the solid height's monotony, and restarts from a state file. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TronWeb } from 'tronweb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { TronwebTronClient } from '../../src/chain/tronweb-client.js';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';

const fresh = (seed: string) => TronWeb.address.fromPrivateKey(seed.repeat(32)) as string;

describe('forks', () => {
  let devnet: Devnet;
  let client: TronwebTronClient;
  beforeAll(async () => {
    devnet = await startDevnet({ blockTimeMs: 0, solidLag: 19, clock: new ManualClock() });
    client = new TronwebTronClient({ fullHost: devnet.url, retries: 0 });
    devnet.control.mine(30);
  });
  afterAll(async () => devnet.close());

  it('replaces the last k blocks with new ids and a consistent parent chain; transactions are re-included', async () => {
    const to = fresh('51');
    devnet.control.mine(1);
    const { txid } = devnet.control.pay({ to, asset: 'USDT_TRON', amount: 9_000_000n, mine: true });
    devnet.control.mine(1);
    const before = await client.getHeadBlock();
    const solidBefore = (await client.getSolidBlock()).number;
    const oldInfo = (await client.getTransactionInfo(txid))!;
    const oldBlocks = await client.getBlocks(before.number - 2, before.number + 1);
    const report = devnet.control.fork(3);
    expect(report.replaced.map((r) => r.number)).toEqual(oldBlocks.map((b) => b.number));
    expect(report.reincluded).toEqual([txid]);
    const after = await client.getBlocks(before.number - 3, before.number + 1);
    for (const [i, b] of after.slice(1).entries()) {
      expect(b.id).not.toBe(oldBlocks[i]!.id);
      expect(b.parentHash).toBe(after[i]!.id);
    }
    const newInfo = (await client.getTransactionInfo(txid))!;
    expect(newInfo.blockNumber).toBe(before.number - 2);
    expect(newInfo.blockNumber).not.toBe(oldInfo.blockNumber);
    expect(devnet.control.balances(to).tokens.USDT_TRON).toBe(9_000_000n);
    expect((await client.getSolidBlock()).number).toBe(solidBefore);
  });

  it('drop mode forgets the orphaned transactions and their effects', async () => {
    const to = fresh('52');
    const { txid } = devnet.control.pay({ to, asset: 'TRX_TRON', amount: 5_000_000n, mine: true });
    expect(await client.getTransactionInfo(txid)).not.toBeNull();
    const report = devnet.control.fork(1, 'drop');
    expect(report.dropped).toEqual([txid]);
    expect(await client.getTransactionInfo(txid)).toBeNull();
    expect(await client.getTransaction(txid)).toBeNull();
    expect((await client.getAccount(to)).exists).toBe(false);
  });

  it('refuses forks that reach the solid height, and the solid height never moves back', async () => {
    const head = devnet.control.chain.head.number;
    const solid = devnet.control.chain.solidNumber;
    expect(() => devnet.control.fork(head - solid + 1)).toThrow(/fork depth/);
    let lastSolid = solid;
    for (let i = 0; i < 5; i++) {
      devnet.control.fork(1 + (i % 3));
      devnet.control.mine(1);
      const s = (await client.getSolidBlock()).number;
      expect(s).toBeGreaterThanOrEqual(lastSolid);
      lastSolid = s;
    }
  });

  it('offers fork and faults over the control API', async () => {
    const res = await fetch(`${devnet.url}/devnet/fork`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ depth: 2 }),
    });
    expect(((await res.json()) as { replaced: unknown[] }).replaced).toHaveLength(2);
    const bad = await fetch(`${devnet.url}/devnet/fork`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ depth: 500 }),
    });
    expect(bad.status).toBe(400);
    const info = (await (await fetch(`${devnet.url}/devnet/info`)).json()) as {
      tokens: { decimals: number }[];
      accounts: unknown[];
    };
    expect(info.tokens.map((t) => t.decimals)).toEqual([6, 6, 18]);
    expect(info.accounts).toHaveLength(5);
  });
});

describe('state file', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'paygate-devnet-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a restarted devnet keeps its blocks, balances and pending transactions', async () => {
    const stateFile = path.join(dir, 'chain.json');
    const to = fresh('53');
    const first = await startDevnet({ blockTimeMs: 0, stateFile, clock: new ManualClock() });
    first.control.mine(5);
    const { txid } = first.control.pay({ to, asset: 'USDC_TRON', amount: 4_000_000n, mine: true });
    const pending = first.control.pay({ to, asset: 'TRX_TRON', amount: 2_000_000n });
    const head = first.control.chain.head;
    await first.close();

    const second = await startDevnet({ blockTimeMs: 0, stateFile, clock: new ManualClock() });
    try {
      const client = new TronwebTronClient({ fullHost: second.url, retries: 0 });
      expect(await client.getHeadBlock()).toMatchObject({ number: head.number, id: head.id });
      expect((await client.getTransactionInfo(txid))?.receiptResult).toBe('SUCCESS');
      expect(await client.getTrc20Balance(second.tokens[1]!.address, to)).toBe(4_000_000n);
      second.control.mine(1);
      expect((await client.getTransactionInfo(pending.txid))?.blockNumber).toBe(head.number + 1);
      expect((await client.getAccount(to)).balance).toBe(2_000_000n);
      expect(second.accounts).toEqual(first.accounts);
    } finally {
      await second.close();
    }
  });
});

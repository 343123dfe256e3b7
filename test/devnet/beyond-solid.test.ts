/**
 * What a real chain never does, on purpose: `POST /devnet/fork {"beyond_solid": true}` replaces
 * blocks below the solid height (a node that contradicts finality), and `POST /devnet/blacklist`
 * makes the token contract refuse transfers to an address (they revert, and so does their
 * energy estimate).
 */
import { TronWeb } from 'tronweb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TronwebTronClient } from '../../src/chain/tronweb-client.js';
import { ManualClock } from '../../src/clock.js';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';

const fresh = (seed: string) => TronWeb.address.fromPrivateKey(seed.repeat(32)) as string;
const post = async (url: string, body: unknown) => {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json()) as any };
};

let devnet: Devnet;
let client: TronwebTronClient;
beforeAll(async () => {
  devnet = await startDevnet({ blockTimeMs: 0, solidLag: 5, clock: new ManualClock() });
  client = new TronwebTronClient({ fullHost: devnet.url, retries: 0 });
  devnet.control.mine(20);
});
afterAll(async () => {
  await client.close();
  await devnet.close();
});

describe('a fork beyond the solid height', () => {
  it('replaces blocks at and below the solid height with other ids and a consistent parent chain; balances, transactions and the solid height stay', async () => {
    const to = fresh('61');
    const { txid } = devnet.control.pay({ to, asset: 'USDT_TRON', amount: 7_000_000n, mine: true });
    devnet.control.mine(8);
    const solid = await client.getSolidBlock();
    const head = await client.getHeadBlock();
    const paidIn = (await client.getTransactionInfo(txid))!.blockNumber;
    expect(paidIn).toBeLessThanOrEqual(solid.number);
    const before = await client.getBlocks(paidIn - 1, head.number + 1);

    const depth = head.number - paidIn + 1;
    const r = await post(`${devnet.url}/devnet/fork`, { depth, beyond_solid: true });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.replaced.map((x: { number: number }) => x.number)).toEqual(before.slice(1).map((b) => b.number));

    const after = await client.getBlocks(paidIn - 1, head.number + 1);
    expect(after[0]!.id).toBe(before[0]!.id);
    for (let i = 1; i < after.length; i++) {
      expect(after[i]!.id).not.toBe(before[i]!.id);
      expect(after[i]!.parentHash).toBe(after[i - 1]!.id);
    }
    // The node's own solid block is now another block at the same height.
    const solidAfter = await client.getSolidBlock();
    expect(solidAfter.number).toBe(solid.number);
    expect(solidAfter.id).not.toBe(solid.id);
    expect((await client.getTransactionInfo(txid))!.blockNumber).toBe(paidIn);
    expect(devnet.control.balances(to).tokens.USDT_TRON).toBe(7_000_000n);
  });

  it('must reach below the solid height, and keeps the transactions (no drop mode)', async () => {
    const above = devnet.control.info().head.number - devnet.control.info().solid.number;
    expect((await post(`${devnet.url}/devnet/fork`, { depth: above, beyond_solid: true })).status).toBe(400);
    expect(
      (await post(`${devnet.url}/devnet/fork`, { depth: above + 1, beyond_solid: true, mode: 'drop' })).status,
    ).toBe(400);
  });
});

describe('a token blacklist', () => {
  it('makes transfers to the address revert, and their energy estimate fail', async () => {
    const refused = fresh('62');
    const fine = fresh('63');
    const r = await post(`${devnet.url}/devnet/blacklist`, { asset: 'USDT_TRON', address: refused });
    expect(r.status).toBe(200);
    const usdt = devnet.tokens.find((t) => t.asset === 'USDT_TRON')!.address;
    const from = devnet.accounts[0]!.address;
    await expect(client.estimateTrc20TransferEnergy(usdt, from, refused, 1_000_000n)).rejects.toThrow(/REVERT/);
    expect(await client.estimateTrc20TransferEnergy(usdt, from, fine, 1_000_000n)).toBeGreaterThan(0n);
    const { txid } = devnet.control.pay({ to: refused, asset: 'USDT_TRON', amount: 1_000_000n, mine: true });
    expect((await client.getTransactionInfo(txid))!.receiptResult).toBe('REVERT');
    expect(devnet.control.balances(refused).tokens.USDT_TRON).toBe(0n);
  });
});

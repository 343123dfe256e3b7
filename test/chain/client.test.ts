/** The TronClient end to end against a devnet over real HTTP, including faults and retries. */
import { TronWeb } from 'tronweb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { TronNodeError, TronTimeoutError } from '../../src/chain/errors.js';
import { decodeTransferLog } from '../../src/chain/trc20.js';
import { TronwebTronClient } from '../../src/chain/tronweb-client.js';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';

let devnet: Devnet;
let client: TronwebTronClient;
const fresh = (seed: string) => TronWeb.address.fromPrivateKey(seed.repeat(32)) as string;
const fast = { retries: 3, backoffMs: 5, maxBackoffMs: 20, timeoutMs: 2_000 };

beforeAll(async () => {
  devnet = await startDevnet({ blockTimeMs: 0, clock: new ManualClock() });
  client = new TronwebTronClient({ fullHost: devnet.url, apiKey: 'test-key', ...fast });
});
afterAll(async () => devnet.close());
afterEach(() => devnet.control.clearFaults());

describe('TronClient against the devnet', () => {
  it('reads head, solid and ranges of blocks (more than 100 per call split up)', async () => {
    devnet.control.mine(130);
    const head = await client.getHeadBlock();
    const solid = await client.getSolidBlock();
    expect(head.number).toBe(devnet.control.chain.head.number);
    expect(solid.number).toBe(head.number - 19);
    const blocks = await client.getBlocks(1, head.number + 5);
    expect(blocks.map((b) => b.number)).toEqual(Array.from({ length: head.number }, (_, i) => i + 1));
    for (let i = 1; i < blocks.length; i++) expect(blocks[i]!.parentHash).toBe(blocks[i - 1]!.id);
    expect(await client.getBlock(head.number + 1)).toBeNull();
    expect(blocks[0]!.witness).toMatch(/^T/);
  });

  it('builds, signs and broadcasts TRX and USDT transfers that land with infos, logs and fees', async () => {
    const payer = devnet.accounts[0]!;
    const to = fresh('41');
    const trx = await client.sign(
      await client.buildTrxTransfer({ from: payer.address, to, amount: 3_000_000n }),
      payer.privateKey,
    );
    expect(await client.broadcast(trx)).toEqual({ ok: true, txid: trx.txID, duplicate: false });
    const usdt = devnet.tokens[0]!.address;
    expect(await client.estimateTrc20TransferEnergy(usdt, payer.address, to, 7n)).toBe(130_285n);
    const tok = await client.sign(
      await client.buildTrc20Transfer({
        contract: usdt,
        from: payer.address,
        to,
        amount: 7_000_000n,
        feeLimit: 30_000_000n,
      }),
      payer.privateKey,
    );
    expect((await client.broadcast(tok)).ok).toBe(true);
    expect(await client.getTransactionInfo(tok.txID)).toBeNull();
    devnet.control.mine(1);
    const info = (await client.getTransactionInfo(tok.txID))!;
    expect(info).toMatchObject({
      result: 'SUCCESS',
      receiptResult: 'SUCCESS',
      energyUsageTotal: 130_285n,
      energyFee: 13_028_500n,
      contractAddress: usdt,
    });
    expect(info.fee).toBe(info.energyFee + info.netFee);
    expect(decodeTransferLog(info.logs[0]!)).toEqual({ contract: usdt, from: payer.address, to, amount: 7_000_000n });
    const trxInfo = (await client.getTransactionInfo(trx.txID))!;
    expect(trxInfo.fee).toBe(1_100_000n);
    const block = (await client.getBlock(info.blockNumber))!;
    expect(block.transactions.map((t) => t.txID)).toEqual([trx.txID, tok.txID]);
    expect(block.transactions[0]).toMatchObject({
      contractType: 'TransferContract',
      owner: payer.address,
      to,
      amount: 3_000_000n,
      contractRet: 'SUCCESS',
    });
    expect(block.transactions[1]).toMatchObject({
      contractType: 'TriggerSmartContract',
      contractAddress: usdt,
      feeLimit: 30_000_000n,
    });
    expect((await client.getTransactionInfosByBlock(info.blockNumber)).map((i) => i.txID)).toEqual([
      trx.txID,
      tok.txID,
    ]);
    expect(await client.getTrc20Balance(usdt, to)).toBe(7_000_000n);
    expect(await client.getTransaction(tok.txID, { solid: true })).toBeNull();
    devnet.control.mine(19);
    expect((await client.getTransactionInfo(tok.txID, { solid: true }))?.blockNumber).toBe(info.blockNumber);
    expect((await client.getTransaction(tok.txID))?.contractRet).toBe('SUCCESS');
    const acct = await client.getAccount(to);
    expect(acct).toMatchObject({ exists: true, balance: 3_000_000n });
    expect((await client.getAccount(fresh('42'))).exists).toBe(false);
  });

  it('reports a re-broadcast as accepted (duplicate) and refuses to sign with the wrong key', async () => {
    const payer = devnet.accounts[0]!;
    const tx = await client.sign(
      await client.buildTrxTransfer({ from: payer.address, to: fresh('43'), amount: 1_000_000n }),
      payer.privateKey,
    );
    expect(await client.broadcast(tx)).toEqual({ ok: true, txid: tx.txID, duplicate: false });
    expect(await client.broadcast(tx)).toEqual({ ok: true, txid: tx.txID, duplicate: true });
    const other = await client.buildTrxTransfer({ from: payer.address, to: fresh('43'), amount: 1n });
    await expect(client.sign(other, devnet.accounts[1]!.privateKey)).rejects.toThrow();
    const tampered = { ...other, raw_data: { ...other.raw_data, expiration: (other.raw_data.expiration ?? 0) + 1 } };
    await expect(client.sign(tampered, payer.privateKey)).rejects.toThrow(/raw_data/);
  });

  it('a broadcast whose answer is lost is retried and reported accepted, not failed', async () => {
    const payer = devnet.accounts[0]!;
    const tx = await client.sign(
      await client.buildTrxTransfer({ from: payer.address, to: fresh('44'), amount: 2_000_000n }),
      payer.privateKey,
    );
    devnet.control.addFault({ kind: 'lost_answer', path: '/wallet/broadcasttransaction', times: 1 });
    expect(await client.broadcast(tx)).toEqual({ ok: true, txid: tx.txID, duplicate: true });
    devnet.control.mine(1);
    expect((await client.getTransactionInfo(tx.txID))?.blockNumber).toBeGreaterThan(0);
  });

  it('stakes and delegates energy so a deposit address can sweep without burning TRX', async () => {
    const sweeper = devnet.accounts[2]!;
    const deposit = { address: fresh('44'), privateKey: '44'.repeat(32) };
    devnet.control.fund({ address: deposit.address, asset: 'TRX_TRON', amount: 1_000_000n });
    devnet.control.fund({ address: deposit.address, asset: 'USDT_TRON', amount: 5_000_000n, mine: true });
    const freeze = await client.sign(
      await client.buildFreezeBalanceV2({ owner: sweeper.address, amount: 14_000_000_000n, resource: 'ENERGY' }),
      sweeper.privateKey,
    );
    expect((await client.broadcast(freeze)).ok).toBe(true);
    const delegate = await client.sign(
      await client.buildDelegateResource({
        owner: sweeper.address,
        receiver: deposit.address,
        amount: 14_000_000_000n,
        resource: 'ENERGY',
      }),
      sweeper.privateKey,
    );
    expect((await client.broadcast(delegate)).ok).toBe(true);
    devnet.control.mine(1);
    expect((await client.getAccountResources(deposit.address)).energyLimit).toBe(140_000n);
    expect(await client.getAccount(sweeper.address)).toMatchObject({
      delegatedOutEnergy: 14_000_000_000n,
      frozenForEnergy: 0n,
    });
    expect((await client.getAccount(deposit.address)).acquiredEnergy).toBe(14_000_000_000n);
    const sweep = await client.sign(
      await client.buildTrc20Transfer({
        contract: devnet.tokens[0]!.address,
        from: deposit.address,
        to: sweeper.address,
        amount: 5_000_000n,
        feeLimit: 20_000_000n,
      }),
      deposit.privateKey,
    );
    expect((await client.broadcast(sweep)).ok).toBe(true);
    devnet.control.mine(1);
    const info = (await client.getTransactionInfo(sweep.txID))!;
    expect(info).toMatchObject({ receiptResult: 'SUCCESS', energyFee: 0n, energyUsage: 64_285n });
    const undelegate = await client.sign(
      await client.buildUnDelegateResource({
        owner: sweeper.address,
        receiver: deposit.address,
        amount: 14_000_000_000n,
        resource: 'ENERGY',
      }),
      sweeper.privateKey,
    );
    expect((await client.broadcast(undelegate)).ok).toBe(true);
  });
});

describe('TronClient under faults', () => {
  it('retries HTTP 5xx and then succeeds', async () => {
    const f = devnet.control.addFault({ kind: 'http', status: 502, path: '/wallet/getnowblock', times: 2 });
    expect((await client.getHeadBlock()).number).toBe(devnet.control.chain.head.number);
    expect(devnet.control.faults().find((x) => x.id === f.id)).toBeUndefined();
  });

  it('raises a transient TronNodeError with the status when 5xx persists', async () => {
    devnet.control.addFault({ kind: 'http', status: 503, path: '/wallet/getnowblock' });
    const err = await client.getHeadBlock().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TronNodeError);
    expect(err).toMatchObject({ status: 503, transient: true });
    expect(devnet.control.faults()[0]!.hits).toBe(fast.retries + 1);
  });

  it('retries transient {"Error"} answers, but not permanent ones', async () => {
    devnet.control.addFault({
      kind: 'error',
      message: 'SERVER_BUSY: too many requests, try again',
      path: '/wallet/getnowblock',
      times: 2,
    });
    expect((await client.getHeadBlock()).number).toBeGreaterThan(0);
    const permanent = devnet.control.addFault({
      kind: 'error',
      message: 'class java.lang.IllegalArgumentException : bad address',
      path: '/wallet/getaccount',
    });
    const err = await client.getAccount(devnet.accounts[0]!.address).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'TronNodeError', transient: false });
    expect(devnet.control.faults().find((x) => x.id === permanent.id)!.hits).toBe(1);
  });

  it('times out hanging requests, retries, then raises TronTimeoutError', async () => {
    const impatient = new TronwebTronClient({ fullHost: devnet.url, retries: 1, backoffMs: 5, timeoutMs: 150 });
    devnet.control.addFault({ kind: 'hang', path: '/walletsolidity/getnowblock' });
    const err = await impatient.getSolidBlock().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TronTimeoutError);
    expect(devnet.control.faults()[0]!.hits).toBe(2);
    devnet.control.clearFaults();
    devnet.control.addFault({ kind: 'hang', path: '/wallet/getnowblock', times: 1 });
    expect((await impatient.getHeadBlock()).number).toBeGreaterThan(0);
  });

  it('answers after added latency within the timeout', async () => {
    devnet.control.addFault({ kind: 'latency', ms: 50, path: '/wallet/getblockbylimitnext' });
    expect((await client.getBlocks(1, 3)).length).toBe(2);
  });

  it('retries a SERVER_BUSY broadcast with backoff, and reports it when the node stays busy', async () => {
    const payer = devnet.accounts[0]!;
    devnet.control.addFault({ kind: 'busy', times: 2 });
    const tx = await client.sign(
      await client.buildTrxTransfer({ from: payer.address, to: fresh('45'), amount: 1_000_000n }),
      payer.privateKey,
    );
    expect(await client.broadcast(tx)).toEqual({ ok: true, txid: tx.txID, duplicate: false });
    devnet.control.addFault({ kind: 'busy' });
    const tx2 = await client.sign(
      await client.buildTrxTransfer({ from: payer.address, to: fresh('45'), amount: 2_000_000n }),
      payer.privateKey,
    );
    expect(await client.broadcast(tx2)).toMatchObject({ ok: false, code: 'SERVER_BUSY', retryable: true });
  });

  it('raises TronNetworkError-typed transient errors when nothing listens', async () => {
    const dead = new TronwebTronClient({ fullHost: 'http://127.0.0.1:1', retries: 1, backoffMs: 1, timeoutMs: 500 });
    await expect(dead.getHeadBlock()).rejects.toMatchObject({ name: 'TronNetworkError', transient: true });
  });
});

describe('TronClient request headers', () => {
  it('sends TRON-PRO-API-KEY when configured', async () => {
    const { createServer } = await import('node:http');
    const seen: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers['tron-pro-api-key'] as string | undefined);
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as { port: number }).port;
      const keyed = new TronwebTronClient({ fullHost: `http://127.0.0.1:${port}`, apiKey: 'k-123', retries: 0 });
      expect(await keyed.getBlock(5)).toBeNull();
      const plain = new TronwebTronClient({ fullHost: `http://127.0.0.1:${port}`, retries: 0 });
      expect(await plain.getTransactionInfo('ab'.repeat(32))).toBeNull();
      expect(seen).toEqual(['k-123', undefined]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

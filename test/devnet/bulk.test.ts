/** Bulk history (benchmarks): linked blocks of mainnet-sized transactions, readable by the client. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toHexAddress } from '../../src/chain/address.js';
import { createTronClient } from '../../src/chain/tronweb-client.js';
import { ManualClock } from '../../src/clock.js';
import { appendBulkBlocks } from '../../bench/lib/bulk.js';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';
import { decodeTransferLog } from '../../src/chain/trc20.js';

let devnet: Devnet;
beforeAll(async () => {
  devnet = await startDevnet({ blockTimeMs: 0, clock: new ManualClock() });
});
afterAll(() => devnet.close());

describe('bulk blocks', () => {
  it('appends linked blocks of 300 transactions with infos and one payment where asked', async () => {
    const to = 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH';
    const { first, last } = appendBulkBlocks(devnet.control.chain, {
      count: 150,
      payments: [{ offset: 7, toHex: toHexAddress(to), amount: 5_000_000n }],
    });
    expect(last - first).toBe(149);
    const client = createTronClient({ fullHost: devnet.url });
    const blocks = await client.getBlocks(first, last + 1);
    expect(blocks).toHaveLength(150);
    for (let i = 1; i < blocks.length; i++) expect(blocks[i]!.parentHash).toBe(blocks[i - 1]!.id);
    expect(blocks[0]!.transactions).toHaveLength(300);
    const infos = await client.getTransactionInfosByBlock(first + 7);
    expect(infos).toHaveLength(300);
    expect(infos[0]).toMatchObject({ blockNumber: first + 7, result: 'SUCCESS' });
    expect(decodeTransferLog(infos[0]!.logs[0]!)).toMatchObject({ to, amount: 5_000_000n });
    // The chain goes on normally after the bulk (mining, forks).
    devnet.control.mine(2);
    expect(devnet.control.fork(2, 'drop').replaced).toHaveLength(2);
  });

  it('carries native TRX payments too, as TransferContracts the client reads with their amount', async () => {
    const to = 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH';
    const payments = [
      { offset: 0, toHex: toHexAddress(to), amount: 7_000_000n, asset: 'TRX_TRON' as const },
      { offset: 0, toHex: toHexAddress(to), amount: 3_000_000n, asset: 'USDT_TRON' as const },
    ];
    const { first } = appendBulkBlocks(devnet.control.chain, { count: 1, payments });
    const client = createTronClient({ fullHost: devnet.url });
    const [block] = await client.getBlocks(first, first + 1);
    expect(block!.transactions).toHaveLength(300);
    expect(block!.transactions[0]).toMatchObject({
      contractType: 'TransferContract',
      contractRet: 'SUCCESS',
      toHex: toHexAddress(to),
      amount: 7_000_000n,
    });
    const infos = await client.getTransactionInfosByBlock(first);
    expect(decodeTransferLog(infos[1]!.logs[0]!)).toMatchObject({ to, amount: 3_000_000n });
  });
});

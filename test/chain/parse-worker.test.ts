/**
 * Block ranges and block infos are parsed and pruned on the parse worker (src/chain/parse-worker.ts).
 * What the watcher reads from them must be exactly what it reads from the node's full answer, and
 * a broken answer must fail the same way it fails when parsed on the main thread.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { ChainBlock, ScanBlock, ScanTransferLog, TxInfo } from '../../src/chain/client.js';
import { TronNodeError } from '../../src/chain/errors.js';
import { ParseWorker } from '../../src/chain/parse-worker.js';
import { parseBlock, parseInfo } from '../../src/chain/parse.js';
import { scanTransferLogs } from '../../src/chain/prune.js';
import { TRANSFER_TOPIC } from '../../src/chain/trc20.js';
import { TronwebTronClient } from '../../src/chain/tronweb-client.js';
import { appendBulkBlocks } from '../../bench/lib/bulk.js';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';

let devnet: Devnet;
let client: TronwebTronClient;
let first = 0;
const fast = { retries: 2, backoffMs: 5, maxBackoffMs: 20, timeoutMs: 5_000 };

async function nodeJson(path: string, body: unknown): Promise<any> {
  const res = await fetch(devnet.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return res.json();
}

/** What scanning must see of a fully parsed block: its header, successful TRX transfers and calls. */
function scanOf(b: ChainBlock): ScanBlock {
  const { transactions, ...header } = b;
  const ok = transactions.filter((t) => t.contractRet === 'SUCCESS');
  return {
    ...header,
    transfers: ok
      .filter((t) => t.contractType === 'TransferContract')
      .map((t) => ({
        txID: t.txID,
        toHex: t.toHex ?? '',
        ownerHex: String(
          (t.raw.raw_data.contract[0]!.parameter.value as { owner_address: string }).owner_address,
        ).toLowerCase(),
        amount: t.amount!,
      })),
    calls: ok
      .filter((t) => t.contractType === 'TriggerSmartContract' || t.contractType === 'CreateSmartContract')
      .map((t) => t.txID),
    unsure: transactions
      .filter(
        (t) =>
          t.contractRet === undefined &&
          ['TransferContract', 'TriggerSmartContract', 'CreateSmartContract'].includes(t.contractType),
      )
      .map((t) => t.txID),
    acts: [],
  };
}
/** What scanning must see of fully parsed infos: the Transfer logs of successful transactions. */
const transferLogsOf = (infos: TxInfo[]): ScanTransferLog[] =>
  infos
    .filter((i) => i.result === 'SUCCESS')
    .flatMap((i) =>
      i.logs
        .filter((l) => l.topics.length === 3 && l.topics[0]!.toLowerCase() === TRANSFER_TOPIC)
        .map((l) => ({
          txID: i.txID,
          blockNumber: i.blockNumber,
          index: l.index,
          address: l.address,
          from: l.topics[1]!,
          to: l.topics[2]!,
          data: l.data ?? '',
        })),
    );

beforeAll(async () => {
  devnet = await startDevnet({ blockTimeMs: 0, clock: new ManualClock() });
  client = new TronwebTronClient({ fullHost: devnet.url, ...fast });
  // Executed transactions of every kind the devnet knows (TRX, TRC20, a failed call)…
  devnet.control.pay({ to: devnet.accounts[1]!.address, asset: 'TRX', amount: 2_000_000n });
  devnet.control.pay({ to: devnet.accounts[1]!.address, asset: 'USDT_TRON', amount: 3_000_000n });
  devnet.control.pay({ to: devnet.accounts[1]!.address, asset: 'USDT_TRON', amount: 1_000_000n, feeLimit: 1_000n });
  devnet.control.mine(1);
  // …and mainnet-sized bulk blocks (USDT transfers with logs, TRX transfers, other calls).
  first = appendBulkBlocks(devnet.control.chain, { count: 3, txPerBlock: 300, payments: [] }).first;
});
afterAll(async () => {
  await client.close();
  await devnet.close();
});

describe('the parse worker', () => {
  it('gives the watcher exactly what it reads of the full answer, for executed and bulk blocks', async () => {
    const head = devnet.control.chain.head.number;
    const full = await nodeJson('/wallet/getblockbylimitnext', { startNum: 1, endNum: head + 1 });
    const parsed = (full.block as unknown[]).map((b) => parseBlock(b as never));
    expect(parsed.flatMap((b) => b.transactions).some((t) => t.contractRet === 'OUT_OF_ENERGY')).toBe(true);
    const scanned = await client.getScanBlocks(1, head + 1);
    expect(scanned.length).toBe(head);
    expect(scanned).toEqual(parsed.map(scanOf));
    // A bulk block: about 35 % TRX transfers and 60 % token calls of its 300 transactions.
    const bulk = scanned.find((b) => b.number === first)!;
    expect(bulk.transfers.length).toBeGreaterThan(90);
    expect(bulk.calls.length).toBeGreaterThan(170);
    // The failed token call is not among the calls whose infos are read.
    const failed = parsed.flatMap((b) => b.transactions).find((t) => t.contractRet === 'OUT_OF_ENERGY')!;
    expect(scanned.flatMap((b) => b.calls)).not.toContain(failed.txID);
    // A range that runs past the head stops at the last block, as getBlocks does.
    expect((await client.getScanBlocks(head - 1, head + 3)).map((b) => b.number)).toEqual([head - 1, head]);
  });

  it('gives the Transfer logs of successful transactions exactly as the full infos hold them', async () => {
    const executed = devnet.control.chain.blocks.find((b) => b.txs.length === 3)!.number;
    for (const num of [executed, first]) {
      const full = ((await nodeJson('/wallet/gettransactioninfobyblocknum', { num })) as unknown[]).map((i) =>
        parseInfo(i as never),
      );
      expect(full.length).toBeGreaterThan(0);
      const { ids, logs } = await client.getScanTransferLogs(num);
      expect(logs).toEqual(transferLogsOf(full));
      expect(logs.length).toBeGreaterThan(0);
      // Every info the node answered is named, so a left-out call can be told from a call without logs.
      expect(ids).toEqual(full.map((i) => i.txID));
    }
    // The failed token transfer (OUT_OF_ENERGY) has no log to offer; the successful one has.
    expect((await client.getScanTransferLogs(executed)).logs.length).toBe(1);
  });

  it('retries a busy {"Error"} answer to a range and fails a permanent one, as on the main thread', async () => {
    devnet.control.addFault({
      kind: 'error',
      message: 'SERVER_BUSY: try again',
      path: '/wallet/getblockbylimitnext',
      times: 1,
    });
    expect((await client.getScanBlocks(1, 3)).length).toBe(2);
    devnet.control.addFault({
      kind: 'error',
      message: 'class java.lang.IllegalArgumentException : bad range',
      path: '/wallet/getblockbylimitnext',
    });
    await expect(client.getScanBlocks(1, 3)).rejects.toMatchObject({ name: 'TronNodeError', transient: false });
    devnet.control.clearFaults();
  });

  it('refuses a non-JSON answer as a permanent node error quoting its start, and keeps working', async () => {
    const liar: Server = createServer((req, res) => {
      req.resume();
      const log = [{ address: 'aa', topics: [TRANSFER_TOPIC, '01', '02'], data: '03' }];
      const infos = [
        { id: 'ab', blockNumber: 7, receipt: { result: 'SUCCESS' }, log },
        // Logs of a transaction that did not succeed, or says nothing of its outcome, never count.
        { id: 'reverted', blockNumber: 7, receipt: { result: 'REVERT' }, log },
        { id: 'silent', blockNumber: 7, log },
        { id: 'failed', blockNumber: 7, result: 'FAILED', receipt: { result: 'SUCCESS' }, log },
        // Not a Transfer: another event, or a Transfer-like event with the wrong number of topics.
        {
          id: 'approval',
          blockNumber: 7,
          receipt: { result: 'SUCCESS' },
          log: [{ address: 'aa', topics: ['8c5be1e5', '01', '02'], data: '03' }],
        },
        {
          id: 'erc721',
          blockNumber: 7,
          receipt: { result: 'SUCCESS' },
          log: [{ address: 'aa', topics: [TRANSFER_TOPIC, '01', '02', '03'] }],
        },
      ];
      req.on('end', () =>
        res.end(req.url === '/wallet/getblockbylimitnext' ? '<html>gateway says hello</html>' : JSON.stringify(infos)),
      );
    });
    await new Promise<void>((r) => liar.listen(0, '127.0.0.1', r));
    const lied = new TronwebTronClient({
      fullHost: `http://127.0.0.1:${(liar.address() as AddressInfo).port}`,
      ...fast,
    });
    try {
      const err = await lied.getScanBlocks(1, 3).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TronNodeError);
      expect(err).toMatchObject({ transient: false });
      expect((err as Error).message).toContain('non-JSON: <html>gateway says hello');
      // The worker survived the failed parse, and keeps only the successful Transfer; the info
      // whose receipt states no result is named, for the watcher to ask again.
      const scanned = await lied.getScanTransferLogs(7);
      expect(scanned.logs).toEqual([
        { txID: 'ab', blockNumber: 7, index: 0, address: 'aa', from: '01', to: '02', data: '03' },
      ]);
      expect(scanned.unsure).toEqual(['silent']);
    } finally {
      await lied.close();
      liar.close();
    }
  });

  it('names the transfers and calls of a block whose result the node left out', async () => {
    const worker = new ParseWorker();
    const tx = (txID: string, type: string, ret?: unknown) => ({
      txID,
      ...(ret === undefined ? {} : { ret }),
      raw_data: {
        contract: [{ type, parameter: { value: { to_address: '41aa', owner_address: '41bb', amount: 5 } } }],
      },
    });
    const range = {
      block: [
        {
          blockID: '0c',
          transactions: [
            tx('paid', 'TransferContract', [{ contractRet: 'SUCCESS' }]),
            tx('no-ret', 'TransferContract'),
            tx('empty-ret', 'TriggerSmartContract', [{}]),
            tx('default-ret', 'TransferContract', [{ contractRet: 'DEFAULT' }]),
            tx('reverted', 'TriggerSmartContract', [{ contractRet: 'REVERT' }]),
            // Not a transfer the watcher reads: its result does not matter here.
            tx('vote', 'VoteWitnessContract'),
          ],
        },
      ],
    };
    const parsed = (await worker.parse('blockRange', new TextEncoder().encode(JSON.stringify(range)))) as {
      block: { transfers: { txID: string }[]; calls: string[]; unsure: string[] }[];
    };
    expect(parsed.block[0]!.transfers.map((t) => t.txID)).toEqual(['paid']);
    expect(parsed.block[0]!.calls).toEqual([]);
    expect(parsed.block[0]!.unsure).toEqual(['no-ret', 'empty-ret', 'default-ret']);
    await worker.stop();
  });

  it('names a successful TRX transfer the node printed without its receiver or amount, never skips it', async () => {
    const worker = new ParseWorker();
    const tx = (txID: string, value: object) => ({
      txID,
      ret: [{ contractRet: 'SUCCESS' }],
      raw_data: { contract: [{ type: 'TransferContract', parameter: { value } }] },
    });
    const range = {
      block: [
        {
          blockID: '0d',
          transactions: [
            tx('paid', { to_address: '41aa', owner_address: '41bb', amount: 5 }),
            tx('no-receiver', { owner_address: '41bb', amount: 5 }),
            tx('empty-receiver', { to_address: '', owner_address: '41bb', amount: 5 }),
            tx('no-amount', { to_address: '41aa', owner_address: '41bb' }),
          ],
        },
      ],
    };
    const parsed = (await worker.parse('blockRange', new TextEncoder().encode(JSON.stringify(range)))) as {
      block: { transfers: { txID: string }[]; unsure: string[] }[];
    };
    expect(parsed.block[0]!.transfers.map((t) => t.txID)).toEqual(['paid']);
    expect(parsed.block[0]!.unsure).toEqual(['no-receiver', 'empty-receiver', 'no-amount']);
    await worker.stop();
  });

  it('reads transaction ids in lower case, and asks again for a successful transfer or call printed without its id', async () => {
    const worker = new ParseWorker();
    const id = 'AB'.repeat(32);
    const tx = (txID: string | undefined, type: string) => ({
      ...(txID === undefined ? {} : { txID }),
      ret: [{ contractRet: 'SUCCESS' }],
      raw_data: {
        contract: [{ type, parameter: { value: { to_address: '41aa', owner_address: '41bb', amount: 5 } } }],
      },
    });
    const range = {
      block: [
        {
          blockID: '0e',
          transactions: [tx(id, 'TransferContract'), tx(id.replace('AB', 'CD'), 'TriggerSmartContract')],
        },
        { blockID: '0f', transactions: [tx(undefined, 'TransferContract'), tx(undefined, 'TriggerSmartContract')] },
      ],
    };
    const parsed = (await worker.parse('blockRange', new TextEncoder().encode(JSON.stringify(range)))) as {
      block: { transfers: { txID: string }[]; calls: string[]; unsure: string[] }[];
    };
    expect(parsed.block[0]!.transfers.map((t) => t.txID)).toEqual([id.toLowerCase()]);
    expect(parsed.block[0]!.calls).toEqual([id.replace('AB', 'CD').toLowerCase()]);
    // Without an id a transfer could not be recorded once (two would share one): neither read nor skipped.
    expect(parsed.block[1]!.transfers).toEqual([]);
    expect(parsed.block[1]!.calls).toEqual([]);
    expect(parsed.block[1]!.unsure).toHaveLength(2);
    const topic = (hex: string) => '0'.repeat(24) + hex;
    const infos = [
      {
        id,
        blockNumber: 7,
        receipt: { result: 'SUCCESS' },
        log: [
          {
            address: 'a614f803b6fd780986a42c78ec9c7f77e6ded13c',
            topics: [TRANSFER_TOPIC, topic('bb'.repeat(20)), topic('aa'.repeat(20))],
            data: '0'.repeat(63) + '5',
          },
        ],
      },
    ];
    const logs = scanTransferLogs(infos);
    expect(logs.ids).toEqual([id.toLowerCase()]);
    expect(logs.logs.map((l: { txID: string }) => l.txID)).toEqual([id.toLowerCase()]);
    await worker.stop();
  });

  it('refuses to parse once its client is closed, starting no new thread', async () => {
    const closing = new TronwebTronClient({ fullHost: devnet.url, ...fast });
    expect((await closing.getScanBlocks(1, 3)).length).toBe(2);
    await closing.close();
    await expect(closing.getScanBlocks(1, 3)).rejects.toMatchObject({ name: 'TronNodeError', transient: false });
  });

  it('reads whole answers, an empty one as {}, and fails a broken one', async () => {
    const worker = new ParseWorker();
    const head = devnet.control.chain.head.number;
    const range = async () =>
      new Uint8Array(
        await (
          await fetch(`${devnet.url}/wallet/getblockbylimitnext`, {
            method: 'POST',
            body: JSON.stringify({ startNum: first, endNum: head + 1 }),
          })
        ).arrayBuffer(),
      );
    const infos = async () =>
      new Uint8Array(
        await (
          await fetch(`${devnet.url}/wallet/gettransactioninfobyblocknum`, {
            method: 'POST',
            body: JSON.stringify({ num: first }),
          })
        ).arrayBuffer(),
      );
    const scanned = (await worker.parse('blockRange', await range())) as { block: unknown[] };
    expect(scanned.block.length).toBe(head - first + 1);
    expect(
      ((await worker.parse('blockTxIds', await range())) as { block: { txids: string[] }[] }).block[0]!.txids,
    ).toHaveLength(300);
    expect(((await worker.parse('transferLogs', await infos())) as { logs: unknown[] }).logs.length).toBeGreaterThan(
      170,
    );
    expect(await worker.parse('blockRange', new Uint8Array(0))).toEqual({});
    // A broken answer (cut short) fails with its start quoted, and the worker keeps working.
    await expect(worker.parse('blockRange', new TextEncoder().encode('{"block":['))).rejects.toMatchObject({
      preview: '{"block":[',
    });
    expect(((await worker.parse('blockRange', await range())) as { block: unknown[] }).block.length).toBe(
      head - first + 1,
    );
    await worker.stop();
  });

  it('starts a new worker after being stopped', async () => {
    const worker = new ParseWorker();
    const body = () => new TextEncoder().encode('{"block":[{"blockID":"0a","transactions":[]}]}');
    const scanned = {
      block: [{ blockID: '0a', block_header: { raw_data: {} }, transfers: [], calls: [], unsure: [], acts: [] }],
    };
    // A constructor can move tokens too: a successful contract creation is among the calls.
    const created = new TextEncoder().encode(
      '{"block":[{"blockID":"0b","transactions":[{"txID":"c1","ret":[{"contractRet":"SUCCESS"}],"raw_data":{"contract":[{"type":"CreateSmartContract"}]}}]}]}',
    );
    expect(((await worker.parse('blockRange', created)) as { block: { calls: string[] }[] }).block[0]!.calls).toEqual([
      'c1',
    ]);
    expect(await worker.parse('blockRange', body())).toEqual(scanned);
    await worker.stop();
    expect(await worker.parse('blockRange', body())).toEqual(scanned);
    await worker.stop();
  });

  it('keeps every transaction of the account asked for, whatever its type and result, and no other', async () => {
    const worker = new ParseWorker();
    const own = '41' + 'ab'.repeat(20);
    const other = '41' + 'cd'.repeat(20);
    const tx = (id: string, type: string, value: Record<string, unknown>, ret = 'SUCCESS') => ({
      txID: id,
      ret: [{ contractRet: ret }],
      raw_data: { contract: [{ type, parameter: { value } }] },
    });
    const body = new TextEncoder().encode(
      JSON.stringify({
        block: [
          {
            blockID: '0c',
            transactions: [
              tx('A1', 'VoteWitnessContract', { owner_address: own.toUpperCase(), votes: [] }),
              tx(
                'a2',
                'TriggerSmartContract',
                { owner_address: own, contract_address: other, call_value: 5 },
                'REVERT',
              ),
              tx('a3', 'TransferContract', { owner_address: other, to_address: own, amount: 9 }),
            ],
          },
        ],
      }),
    );
    const [block] = ((await worker.parse('blockRange', body, own)) as { block: { acts: unknown[] }[] }).block;
    expect(block!.acts).toEqual([
      { txID: 'a1', type: 'VoteWitnessContract', result: 'SUCCESS', to: '', amount: 0, asset: '' },
      { txID: 'a2', type: 'TriggerSmartContract', result: 'REVERT', to: other, amount: 5, asset: '' },
    ]);
    await worker.stop();
  });
});

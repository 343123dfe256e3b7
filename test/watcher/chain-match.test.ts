/**
 * Matching without a node or a database: receiversOf() lists every receiver of a block's
 * transfers (the watcher looks them up among the deposit addresses), matchBlock() credits only the
 * deposit addresses found, and keeps every rule (SUCCESS, the log's block, catalog tokens, the hot
 * wallet's top-ups, positive amounts); a catalog token's Transfer into a deposit address without
 * its amount stops the scan (asked again), any other token's is skipped.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/assets/catalog.js';
import { fromHexAddress, toHexAddress } from '../../src/chain/address.js';
import type { ScanBlock, ScanTransferLog } from '../../src/chain/client.js';
import { parseScanBlock, parseScanInfos, UNREADABLE_AMOUNT } from '../../src/chain/parse.js';
import { ParseWorker } from '../../src/chain/parse-worker.js';
import { TRANSFER_TOPIC } from '../../src/chain/trc20.js';
import {
  base58OrNull,
  matchBlock,
  receiversOf,
  TokenSet,
  type FoundAddresses,
  type WatchedAddress,
} from '../../src/watcher/chain-match.js';

const catalog = loadCatalog('devnet');
const tokens = new TokenSet(catalog);
const USDT = toHexAddress(catalog.get('USDT_TRON')!.contract!);
const randomHex = () => `41${randomBytes(20).toString('hex')}`;
const lookAlike = (hex: string) => `${hex.slice(0, 14)}${randomBytes(14).toString('hex')}`;
const word = (hex: string) => `000000000000000000000000${hex.slice(2)}`;
const amountWord = (n: bigint) => n.toString(16).padStart(64, '0');

const deposit = randomHex();
const twin = lookAlike(deposit);
const hot = randomHex();
const payer = randomHex();
const watched: WatchedAddress = {
  address: fromHexAddress(deposit),
  derivationIndex: 0,
  merchantId: 'm1',
  externalUserId: null,
};

function block(p: Partial<ScanBlock> = {}): ScanBlock {
  return {
    number: 100,
    id: '00'.repeat(32),
    parentHash: '11'.repeat(32),
    timestamp: 1_700_000_000_000,
    witness: fromHexAddress(payer),
    transfers: [],
    calls: [],
    unsure: [],
    acts: [],
    ...p,
  };
}

function log(p: Partial<ScanTransferLog> & { to: string }): ScanTransferLog {
  return {
    txID: 'aa',
    blockNumber: 100,
    index: 0,
    address: USDT.slice(2),
    from: word(payer),
    data: amountWord(5_000_000n),
    ...p,
    to: word(p.to),
  };
}

/** What the watcher's lookup answers for these receivers: the deposit address only, by its base58 text. */
function found(receivers: string[]): FoundAddresses {
  const byHex = new Map<string, WatchedAddress>();
  for (const hex of receivers) if (base58OrNull(hex) === watched.address) byHex.set(hex, watched);
  return { byHex, hotHex: hot };
}

describe('receivers and matching', () => {
  it('a look-alike is a receiver but is not credited; the deposit address is', () => {
    const b = block({
      transfers: [
        { txID: 't1', toHex: twin, ownerHex: payer, amount: 7n },
        { txID: 't2', toHex: deposit, ownerHex: payer, amount: 8n },
      ],
      calls: ['c1', 'c2'],
    });
    const logs = [log({ txID: 'c1', to: twin }), log({ txID: 'c2', to: deposit, index: 3 })];
    const receivers = receiversOf(b, logs, tokens);
    expect(new Set(receivers)).toEqual(new Set([twin, deposit]));
    const matched = matchBlock(b, logs, found(receivers), tokens);
    expect(matched.map((f) => [f.watched.address, f.asset, f.amount, f.txHash, f.logIndex])).toEqual([
      [fromHexAddress(deposit), 'TRX_TRON', 8n, 't2', -1],
      [fromHexAddress(deposit), 'USDT_TRON', 5_000_000n, 'c2', 3],
    ]);
    expect(matched.every((f) => f.from === fromHexAddress(payer) && f.block === b)).toBe(true);
  });

  it("another token's Transfer log is no receiver", () => {
    const b = block({ calls: ['c1'] });
    expect(receiversOf(b, [log({ txID: 'c1', to: deposit, address: randomHex().slice(2) })], tokens)).toEqual([]);
  });

  it('every rule holds: nothing else in this block is credited to the deposit address', () => {
    const b = block({
      transfers: [
        { txID: 't-zero', toHex: deposit, ownerHex: payer, amount: 0n },
        { txID: 't-hot', toHex: deposit, ownerHex: hot, amount: 1_000_000n },
        { txID: 't-bad', toHex: '', ownerHex: payer, amount: 5n },
      ],
      calls: ['c-ok'],
    });
    const logs = [
      log({ txID: 'c-failed', to: deposit }), // not among the block's successful calls
      log({ txID: 'c-ok', to: deposit, blockNumber: 99 }), // an info of another block
      log({ txID: 'c-ok', to: deposit, address: randomHex().slice(2) }), // not a catalog token
      log({ txID: 'c-ok', to: deposit, data: amountWord(0n) }),
      log({ txID: 'c-ok', to: deposit, data: 'zz', address: randomHex().slice(2) }), // malformed, not a catalog token
    ];
    expect(receiversOf(b, logs, tokens)).toContain(deposit);
    expect(matchBlock(b, logs, found(receiversOf(b, logs, tokens)), tokens)).toEqual([]);
  });

  it("a catalog token's Transfer into a deposit address without its amount stops the scan, never read as no deposit", () => {
    const b = block({ calls: ['c-ok'] });
    for (const data of ['', 'zz', amountWord(5n).slice(0, 40)]) {
      const logs = [log({ txID: 'c-ok', to: deposit, data })];
      expect(receiversOf(b, logs, tokens)).toEqual([deposit]);
      expect(() => matchBlock(b, logs, found([deposit]), tokens)).toThrow(/without its amount; asking again/);
    }
    // Into an address that is no deposit address, the broken log concerns no one: the scan goes on.
    const other = randomHex();
    const logs = [log({ txID: 'c-ok', to: other, data: '' })];
    expect(matchBlock(b, logs, found(receiversOf(b, logs, tokens)), tokens)).toEqual([]);
  });

  it('a TRX amount past 2^53 sun stops the scan only when it goes into a deposit address', () => {
    // As the node prints it: JSON.parse has rounded it, so it cannot be booked exactly.
    const huge = parseScanBlock({
      blockID: '00'.repeat(32),
      block_header: { raw_data: { number: 100, parentHash: '11'.repeat(32), timestamp: 1_700_000_000_000 } },
      transfers: [{ txID: 't-huge', to: randomHex(), owner: payer, amount: 2 ** 53 + 2 }],
      calls: [],
    });
    expect(huge.transfers[0]!.amount).toBe(UNREADABLE_AMOUNT);
    expect(matchBlock(huge, null, found(receiversOf(huge, null, tokens)), tokens)).toEqual([]);
    const into = parseScanBlock({
      blockID: '00'.repeat(32),
      block_header: { raw_data: { number: 100, parentHash: '11'.repeat(32), timestamp: 1_700_000_000_000 } },
      transfers: [{ txID: 't-huge', to: deposit, owner: payer, amount: 2 ** 53 + 2 }],
      calls: [],
    });
    const receivers = receiversOf(into, null, tokens);
    expect(receivers).toEqual([deposit]);
    expect(() => matchBlock(into, null, found(receivers), tokens)).toThrow(/beyond 2\^53 sun/);
  });

  it('without logs, only the native transfers; log receivers are read in upper case too', () => {
    const b = block({ transfers: [{ txID: 't1', toHex: deposit, ownerHex: payer, amount: 1n }], calls: ['c1'] });
    expect(receiversOf(b, null, tokens)).toEqual([deposit]);
    const logs = [log({ txID: 'c1', to: deposit.toUpperCase() })];
    expect(receiversOf(b, logs, tokens)).toEqual([deposit, deposit]);
    expect(matchBlock(b, logs, found([deposit]), tokens).map((f) => f.txHash)).toEqual(['t1', 'c1']);
  });
});

/**
 * Through the parse worker as the watcher reads a node's answers: a payment to a deposit address,
 * however the node spells its receiver, is among the receivers looked up and is credited.
 */
describe('receivers as the node spells them', () => {
  const worker = new ParseWorker();
  afterAll(() => worker.close());
  const encode = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
  const ok = [{ contractRet: 'SUCCESS' }];
  const trx = (txID: string, to: unknown) => ({
    txID,
    ret: ok,
    raw_data: {
      contract: [
        { type: 'TransferContract', parameter: { value: { to_address: to, owner_address: payer, amount: 5 } } },
      ],
    },
  });
  const call = (txID: string) => ({
    txID,
    ret: ok,
    raw_data: { contract: [{ type: 'TriggerSmartContract', parameter: { value: {} } }] },
  });
  const info = (id: string, to: string) => ({
    id,
    blockNumber: 100,
    receipt: { result: 'SUCCESS' },
    log: [{ address: USDT.slice(2), topics: [TRANSFER_TOPIC, word(payer), to], data: amountWord(7n) }],
  });
  async function scanned(receivers: unknown[], logReceivers: string[]) {
    const transactions = [...receivers.map((to, i) => trx(`t${i}`, to)), ...logReceivers.map((_, i) => call(`c${i}`))];
    const range = {
      block: [
        {
          blockID: '00'.repeat(32),
          block_header: { raw_data: { number: 100, parentHash: '11'.repeat(32), timestamp: 1 } },
          transactions,
        },
      ],
    };
    const b = parseScanBlock(
      ((await worker.parse('blockRange', encode(range))) as { block: unknown[] }).block[0] as never,
    );
    const infos = parseScanInfos(
      (await worker.parse('transferLogs', encode(logReceivers.map((to, i) => info(`c${i}`, to))))) as never,
    );
    return { b, logs: infos.logs };
  }
  const upper = (hex: string) => `41${hex.slice(2).toUpperCase()}`;

  it('credits the deposit address in every spelling, and nothing else', async () => {
    const others = [randomHex(), twin, '41abc', 42, null, `${randomHex()}00`, `${deposit.slice(0, 40)}\u0130`];
    const cases: [unknown[], string[], number][] = [
      [others, [word(randomHex()), word(twin)], 0],
      [[...others, deposit], [], 1],
      [[...others, upper(deposit)], [], 1],
      [[...others, fromHexAddress(deposit)], [], 1],
      [others, [word(deposit)], 1],
      [others, [`0x${word(upper(deposit))}`], 1],
      [others, [`ff${deposit.slice(2)}`], 1],
      [[deposit], [word(deposit)], 2],
    ];
    for (const [receivers, logReceivers, credited] of cases) {
      const { b, logs } = await scanned(receivers, logReceivers);
      const matched = matchBlock(b, logs, found(receiversOf(b, logs, tokens)), tokens);
      expect({ receivers, logReceivers, credited: matched.length }).toEqual({ receivers, logReceivers, credited });
      expect(matched.every((m) => m.watched === watched)).toBe(true);
    }
  });
});

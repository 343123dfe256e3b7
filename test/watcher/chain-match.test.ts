/**
 * Matching without a node or a database: candidateAddresses() lists the prefix hits of a block,
 * matchBlock() credits only the confirmed ones, and both keep every rule (SUCCESS, the log's block,
 * catalog tokens, the hot wallet's top-ups, positive amounts); a catalog token's Transfer into a
 * watched address without its amount stops the scan (asked again), any other token's is skipped.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/assets/catalog.js';
import { fromHexAddress, toHexAddress } from '../../src/chain/address.js';
import type { ScanBlock, ScanTransferLog } from '../../src/chain/client.js';
import { parseScanBlock, parseScanInfos, UNREADABLE_AMOUNT } from '../../src/chain/parse.js';
import { ParseWorker } from '../../src/chain/parse-worker.js';
import { TRANSFER_TOPIC } from '../../src/chain/trc20.js';
import { candidateAddresses, matchBlock, mayPayWatched, TokenSet, Watchlist, type WatchedAddress } from '../../src/workers/chain-match.js';
import { AddressPrefixes } from '../../src/workers/address-prefixes.js';

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

function block(p: Partial<ScanBlock> = {}): ScanBlock {
  return { number: 100, id: '00'.repeat(32), parentHash: '11'.repeat(32), timestamp: 1_700_000_000_000, witness: fromHexAddress(payer), transfers: [], calls: [], unsure: [], ...p };
}

function log(p: Partial<ScanTransferLog> & { to: string }): ScanTransferLog {
  return { txID: 'aa', blockNumber: 100, index: 0, address: USDT.slice(2), from: word(payer), data: amountWord(5_000_000n), ...p, to: word(p.to) };
}

function watchlist(): Watchlist {
  const w = new Watchlist(new AddressPrefixes(4));
  w.add(fromHexAddress(deposit), 0);
  for (let i = 0; i < 20; i++) w.add(fromHexAddress(randomHex()), i + 1);
  w.setHot(fromHexAddress(hot));
  return w;
}

/** What the watcher's database confirmation returns for these candidates: only the real deposit address. */
function confirmed(candidates: string[], w: Watchlist) {
  const byHex = new Map<string, WatchedAddress>();
  for (const hex of candidates) if (hex === deposit) byHex.set(hex, { address: fromHexAddress(hex), derivationIndex: 0, merchantId: 'm1', externalUserId: null });
  return { byHex, hotHex: w.hotHex };
}

describe('candidates and matching', () => {
  it('a look-alike sharing the 48-bit prefix is a candidate but is not credited; the deposit address is', () => {
    const w = watchlist();
    const b = block({
      transfers: [
        { txID: 't1', toHex: twin, ownerHex: payer, amount: 7n },
        { txID: 't2', toHex: deposit, ownerHex: payer, amount: 8n },
      ],
      calls: ['c1', 'c2'],
    });
    const logs = [log({ txID: 'c1', to: twin }), log({ txID: 'c2', to: deposit, index: 3 })];
    const candidates = candidateAddresses(b, logs, w, tokens);
    expect(new Set(candidates)).toEqual(new Set([twin, deposit]));
    const found = matchBlock(b, logs, confirmed(candidates, w), tokens);
    expect(found.map((f) => [f.watched.address, f.asset, f.amount, f.txHash, f.logIndex])).toEqual([
      [fromHexAddress(deposit), 'TRX_TRON', 8n, 't2', -1],
      [fromHexAddress(deposit), 'USDT_TRON', 5_000_000n, 'c2', 3],
    ]);
    expect(found.every((f) => f.from === fromHexAddress(payer) && f.block === b)).toBe(true);
  });

  it('an address not in the list is no candidate', () => {
    const w = watchlist();
    const other = randomHex();
    const b = block({ transfers: [{ txID: 't1', toHex: other, ownerHex: payer, amount: 7n }], calls: ['c1'] });
    expect(candidateAddresses(b, [log({ txID: 'c1', to: other })], w, tokens)).toEqual([]);
  });

  it('every rule holds in both passes: nothing else in this block is a candidate or a match', () => {
    const w = watchlist();
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
    expect(candidateAddresses(b, logs, w, tokens)).toEqual([]);
    // Even with the address confirmed, the same rules credit nothing.
    const byHex = new Map([[deposit, { address: fromHexAddress(deposit), derivationIndex: 0, merchantId: 'm1', externalUserId: null }]]);
    expect(matchBlock(b, logs, { byHex, hotHex: w.hotHex }, tokens)).toEqual([]);
  });

  it("a catalog token's Transfer into a watched address without its amount stops the scan, never read as no deposit", () => {
    const w = watchlist();
    const b = block({ calls: ['c-ok'] });
    const byHex = new Map([[deposit, { address: fromHexAddress(deposit), derivationIndex: 0, merchantId: 'm1', externalUserId: null }]]);
    for (const data of ['', 'zz', amountWord(5n).slice(0, 40)]) {
      const logs = [log({ txID: 'c-ok', to: deposit, data })];
      expect(() => candidateAddresses(b, logs, w, tokens)).toThrow(/without its amount; asking again/);
      expect(() => matchBlock(b, logs, { byHex, hotHex: w.hotHex }, tokens)).toThrow(/without its amount/);
    }
    // Into an address nobody watches, the broken log concerns no one: the scan goes on.
    expect(candidateAddresses(b, [log({ txID: 'c-ok', to: randomHex(), data: '' })], w, tokens)).toEqual([]);
  });

  it('a TRX amount past 2^53 sun stops the scan only when it goes into a deposit address', () => {
    const w = watchlist();
    // As the node prints it: JSON.parse has rounded it, so it cannot be booked exactly.
    const huge = parseScanBlock({ blockID: '00'.repeat(32), block_header: { raw_data: { number: 100, parentHash: '11'.repeat(32), timestamp: 1_700_000_000_000 } }, transfers: [{ txID: 't-huge', to: randomHex(), owner: payer, amount: 2 ** 53 + 2 }], calls: [] });
    expect(huge.transfers[0]!.amount).toBe(UNREADABLE_AMOUNT);
    expect(matchBlock(huge, null, confirmed(candidateAddresses(huge, null, w, tokens), w), tokens)).toEqual([]);
    const into = parseScanBlock({ blockID: '00'.repeat(32), block_header: { raw_data: { number: 100, parentHash: '11'.repeat(32), timestamp: 1_700_000_000_000 } }, transfers: [{ txID: 't-huge', to: deposit, owner: payer, amount: 2 ** 53 + 2 }], calls: [] });
    const candidates = candidateAddresses(into, null, w, tokens);
    expect(candidates).toEqual([deposit]);
    expect(() => matchBlock(into, null, confirmed(candidates, w), tokens)).toThrow(/beyond 2\^53 sun/);
  });

  it('without logs, only the native transfers; log receivers are matched in upper case too', () => {
    const w = watchlist();
    const b = block({ transfers: [{ txID: 't1', toHex: deposit, ownerHex: payer, amount: 1n }], calls: ['c1'] });
    expect(candidateAddresses(b, null, w, tokens)).toEqual([deposit]);
    const logs = [log({ txID: 'c1', to: deposit.toUpperCase() })];
    expect(candidateAddresses(b, logs, w, tokens)).toEqual([deposit, deposit]);
  });
});

/**
 * The watcher skips a block whose receivers' prefixes (listed by the parse worker) are none of them
 * watched, without reading its transfers and logs: that must never hide a candidate.
 */
describe('skipping blocks by their receivers\' prefixes', () => {
  const worker = new ParseWorker();
  afterAll(() => worker.close());
  const encode = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
  const ok = [{ contractRet: 'SUCCESS' }];
  const trx = (txID: string, to: unknown) => ({ txID, ret: ok, raw_data: { contract: [{ type: 'TransferContract', parameter: { value: { to_address: to, owner_address: payer, amount: 5 } } }] } });
  const call = (txID: string) => ({ txID, ret: ok, raw_data: { contract: [{ type: 'TriggerSmartContract', parameter: { value: {} } }] } });
  const info = (id: string, to: string) => ({ id, blockNumber: 100, receipt: { result: 'SUCCESS' }, log: [{ address: USDT.slice(2), topics: [TRANSFER_TOPIC, word(payer), to], data: amountWord(7n) }] });
  /** A block and its infos through the worker as the watcher reads them. */
  async function scanned(receivers: unknown[], logReceivers: string[]) {
    const transactions = [...receivers.map((to, i) => trx(`t${i}`, to)), ...logReceivers.map((_, i) => call(`c${i}`))];
    const range = { block: [{ blockID: '00'.repeat(32), block_header: { raw_data: { number: 100, parentHash: '11'.repeat(32), timestamp: 1 } }, transactions }] };
    const packed = (await worker.parse('blockRange', encode(range))) as { block: unknown[] };
    const b = parseScanBlock(packed.block[0] as never);
    const infos = parseScanInfos((await worker.parse('transferLogs', encode(logReceivers.map((to, i) => info(`c${i}`, to))))) as never);
    return { b, infos };
  }
  const upper = (hex: string) => `41${hex.slice(2).toUpperCase()}`;

  it('a block paying a watched address, in any spelling, is read; one paying only others is skipped', async () => {
    const w = watchlist();
    const others = [randomHex(), randomHex(), '41abc', 42, null, `${randomHex()}00`];
    const cases: [unknown[], string[], boolean][] = [
      [others, [word(randomHex())], false],
      [[...others, deposit], [], true],
      [[...others, upper(deposit)], [], true],
      [[...others, twin], [], true],
      [others, [word(deposit)], true],
      [others, [`0x${word(upper(deposit))}`], true],
      [others, [`ff${deposit.slice(2)}`], true],
      // A base58 receiver is not listed: the block is read.
      [[fromHexAddress(randomHex())], [], true],
      // Not ASCII: 41 characters that lower-case to 42 with the deposit's prefix (a candidate,
      // though never a deposit): both sides read it lower-cased.
      [[...others, `${deposit.slice(0, 40)}\u0130`], [], true],
    ];
    for (const [receivers, logReceivers, paying] of cases) {
      const { b, infos } = await scanned(receivers, logReceivers);
      const candidates = candidateAddresses(b, infos.logs, w, tokens);
      expect({ receivers, logReceivers, skipped: !mayPayWatched(b, infos, w) }).toEqual({ receivers, logReceivers, skipped: !paying });
      if (paying && !receivers.some((r) => typeof r === 'string' && r.startsWith('T'))) expect(candidates.length).toBeGreaterThan(0);
    }
  });

  it('reads a block that comes without the list (not from the worker)', () => {
    const w = watchlist();
    const b = parseScanBlock({ blockID: '00', block_header: { raw_data: { number: 100, parentHash: '11'.repeat(32), timestamp: 1_700_000_000_000 } }, transfers: [{ txID: 't', to: deposit, amount: 5 }], calls: [] });
    expect(b.receivers).toBeNull();
    expect(mayPayWatched(b, undefined, w)).toBe(true);
    expect(mayPayWatched(b, { ids: [], logs: [], unsure: [] }, w)).toBe(true);
    expect(candidateAddresses(b, null, w, tokens)).toEqual([deposit]);
  });

  it('never skips a block with a candidate, over random receivers near the watched ones', async () => {
    const w = watchlist();
    // Every mix of the five kinds, in a fixed order (a failure reproduces).
    let k = 0;
    const near = () => [deposit, twin, upper(deposit), randomHex(), lookAlike(randomHex())][(k++ * 3 + Math.floor(k / 5)) % 5]!;
    for (let round = 0; round < 40; round++) {
      const receivers = Array.from({ length: 1 + (round % 4) }, near);
      const logReceivers = Array.from({ length: round % 3 }, () => word(near()));
      const { b, infos } = await scanned(receivers, logReceivers);
      const candidates = candidateAddresses(b, infos.logs, w, tokens);
      expect(mayPayWatched(b, infos, w)).toBe(candidates.length > 0);
    }
  });
});

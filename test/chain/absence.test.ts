/**
 * The proof that a transaction never lands (chain/absence.ts), over chains built here: only a
 * complete, linked run of blocks from the reference block to a solid block past the expiration,
 * none holding the txid, proves it; anything short of that keeps the transaction pending. The run
 * must end on the solid chain by id: blocks of a fork below the solid height prove nothing.
 */
import { describe, expect, it } from 'vitest';
import { provablyNeverLands } from '../../src/chain/absence.js';
import type { BlockTxIds, ChainBlockHeader, TronTransactionJson } from '../../src/chain/client.js';

const idOf = (n: number, fork = 'a') => n.toString(16).padStart(16, '0') + `${fork}${n}`.padEnd(48, '0');
function chainOf(
  from: number,
  to: number,
  opts: { txAt?: number; txid?: string; fork?: (n: number) => string } = {},
): BlockTxIds[] {
  const blocks: BlockTxIds[] = [];
  for (let n = from; n <= to; n++) {
    const f = opts.fork?.(n) ?? 'a';
    blocks.push({
      number: n,
      id: idOf(n, f),
      parentHash: idOf(n - 1, opts.fork?.(n - 1) ?? 'a'),
      timestamp: n * 3_000,
      witness: '',
      txIDs: n === opts.txAt ? [opts.txid ?? 'ff'] : ['00'.repeat(32)],
    });
  }
  return blocks;
}
/** A node serving `blocks` as ranges, and the chain `solidChain` from its solidity API (by default the same). */
const node = (blocks: BlockTxIds[], solidChain: BlockTxIds[] = blocks) => ({
  getBlockTxIds: async (start: number, end: number) => blocks.filter((b) => b.number >= start && b.number < end),
  getBlockId: async (n: number, opts: { solid?: boolean } = {}) =>
    (opts.solid ? solidChain : blocks).find((b) => b.number === n)?.id ?? null,
});
/** Built when block `ref` was the newest (its timestamp), expiring at `expiration`. */
const txRef = (ref: number, expiration: number, txid = 'ab'.repeat(32)): TronTransactionJson =>
  ({
    txID: txid,
    raw_data: {
      contract: [],
      ref_block_bytes: (ref % 65_536).toString(16).padStart(4, '0'),
      ref_block_hash: idOf(ref).slice(16, 32),
      timestamp: ref * 3_000 + 500,
      expiration,
    },
  }) as unknown as TronTransactionJson;
const solidAt = (n: number): ChainBlockHeader => ({
  number: n,
  id: idOf(n),
  parentHash: idOf(n - 1),
  timestamp: n * 3_000,
  witness: '',
});

describe('provablyNeverLands', () => {
  const ref = 70_000; // above one 16-bit wrap: the reference is found by its low bits and hash
  const expiration = (ref + 20) * 3_000 + 1_000;

  it('is proven by every block from the reference to a solid block past the expiration, none holding it', async () => {
    expect(await provablyNeverLands(node(chainOf(ref - 5, ref + 40)), txRef(ref, expiration), solidAt(ref + 30))).toBe(
      true,
    );
  });

  it('is not proven while the solid block is not past the expiration, or the block past it is not solid', async () => {
    expect(await provablyNeverLands(node(chainOf(ref - 5, ref + 40)), txRef(ref, expiration), solidAt(ref + 20))).toBe(
      false,
    );
    // The node holds blocks only up to the expiration: the first block past it is missing.
    expect(await provablyNeverLands(node(chainOf(ref - 5, ref + 20)), txRef(ref, expiration), solidAt(ref + 30))).toBe(
      false,
    );
  });

  it('is not proven when a block holds the txid', async () => {
    const txid = 'cd'.repeat(32);
    expect(
      await provablyNeverLands(
        node(chainOf(ref - 5, ref + 40, { txAt: ref + 7, txid })),
        txRef(ref, expiration, txid),
        solidAt(ref + 30),
      ),
    ).toBe(false);
  });

  it('is not proven by a node that lacks a block of the run or whose blocks do not link', async () => {
    const gap = chainOf(ref - 5, ref + 40).filter((b) => b.number !== ref + 9);
    expect(await provablyNeverLands(node(gap), txRef(ref, expiration), solidAt(ref + 30))).toBe(false);
    // From ref + 10 on, another fork's blocks: their parent is not the block before them.
    const unlinked = chainOf(ref - 5, ref + 40).map((b) =>
      b.number === ref + 10 ? { ...b, parentHash: idOf(ref + 9, 'z') } : b,
    );
    expect(await provablyNeverLands(node(unlinked), txRef(ref, expiration), solidAt(ref + 30))).toBe(false);
  });

  it('is proven when the block at the reference height, below the solid one, is another (the reference forked away)', async () => {
    const other = chainOf(ref - 5, ref + 40, { fork: (n) => (n >= ref ? 'b' : 'a') });
    expect(await provablyNeverLands(node(other), txRef(ref, expiration), solidAt(ref + 30))).toBe(true);
  });

  it('is not proven from a reference height the node does not have, nor from an unreadable transaction', async () => {
    expect(await provablyNeverLands(node(chainOf(ref + 1, ref + 40)), txRef(ref, expiration), solidAt(ref + 30))).toBe(
      false,
    );
    const noExpiration = {
      ...txRef(ref, expiration),
      raw_data: { ...txRef(ref, expiration).raw_data, expiration: undefined },
    } as TronTransactionJson;
    expect(await provablyNeverLands(node(chainOf(ref - 5, ref + 40)), noExpiration, solidAt(ref + 30))).toBe(false);
  });

  it('is not proven by a range backend on a fork below the solid height: the run must end on the solid chain by id', async () => {
    const txid = 'cd'.repeat(32);
    // The solid chain holds the transaction; the backend serving ranges followed a fork from the
    // block after the reference on, which left it out. Its blocks link, and end below the solid height.
    const solidChain = chainOf(ref - 5, ref + 40, { txAt: ref + 3, txid });
    const fork = chainOf(ref - 5, ref + 40, { fork: (n) => (n > ref ? 'b' : 'a') });
    expect(await provablyNeverLands(node(fork, solidChain), txRef(ref, expiration, txid), solidAt(ref + 30))).toBe(
      false,
    );
    // A fork from the reference block on: "the reference forked away" only if the solid chain says so.
    const fromRef = chainOf(ref - 5, ref + 40, { fork: (n) => (n >= ref ? 'b' : 'a') });
    expect(await provablyNeverLands(node(fromRef, solidChain), txRef(ref, expiration, txid), solidAt(ref + 30))).toBe(
      false,
    );
    // The same run, ended on the solid chain: proven.
    expect(await provablyNeverLands(node(chainOf(ref - 5, ref + 40)), txRef(ref, expiration), solidAt(ref + 21))).toBe(
      true,
    );
  });
});

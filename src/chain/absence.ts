/**
 * Proof that a signed transaction can never land, read from blocks instead of from "not found"
 * answers. A node behind a load balancer may answer the solid header from one backend and the
 * txid lookups from another that has not reached the block holding the transaction yet, and an
 * empty answer reads as "not found" too: on such answers alone a payout was signed anew while its
 * first transaction had landed (sent twice).
 *
 * A transaction can only be in a block after its reference block (TAPOS) and timed before its
 * expiration. It is given up only when the node shows either every such block, as one run linked
 * by parent hashes from the reference block to the first block past the expiration, that block on
 * the solid chain, and none of them holds the txid; or, at the reference height and below the
 * solid one, another block of the solid chain than the one the transaction names (it forked away,
 * and no block of this chain can accept the transaction). A node short of any of those blocks, or
 * whose blocks do not link, proves nothing: the transaction stays pending.
 *
 * "On the solid chain" is compared by id, never by height alone: the block ending the run is the
 * solid block itself, or the block the solidity API answers at its height. A range served by a
 * backend on a fork ends at a height below the solid one too, with blocks that left out a
 * transaction the chain holds.
 */
import type { BlockTxIds, ChainBlockHeader, TronClient, TronTransactionJson } from './client.js';

/** `ref_block_bytes` holds the low 16 bits of the reference block's number. */
const REF_WRAP = 65_536;
const BLOCK_MS = 3_000;
/** At most this many blocks are read (an hour of blocks: expirations are minutes). */
const MAX_BLOCKS = 1_200;

type Chain = Pick<TronClient, 'getBlockTxIds' | 'getBlockId'>;

/** Blocks (a minute) before a failed proof of absence is tried again. */
export const PROOF_RETRY_BLOCKS = 20;

/**
 * A failed proof reads ~20 blocks and proves nothing new until the chain has moved on: while a
 * lagging backend keeps answering "not found", each transaction is tried again only once the
 * solid height has grown by PROOF_RETRY_BLOCKS since its last failed try.
 */
export class ProofThrottle {
  private readonly failedAt = new Map<string | number, number>();

  /** provablyNeverLands, or false without asking when `key`'s last proof failed too recently. */
  async neverLands(
    chain: Chain,
    key: string | number,
    tx: TronTransactionJson,
    solid: ChainBlockHeader,
  ): Promise<boolean> {
    const tried = this.failedAt.get(key);
    if (tried !== undefined && solid.number < tried + PROOF_RETRY_BLOCKS) return false;
    const proven = await provablyNeverLands(chain, tx, solid);
    if (proven) this.failedAt.delete(key);
    else this.failedAt.set(key, solid.number);
    return proven;
  }

  /** The transaction was resolved another way (landed, failed): nothing to remember. */
  forget(key: string | number): void {
    this.failedAt.delete(key);
  }
}

/** true only when no block of the chain can ever hold `tx` (see above). */
export async function provablyNeverLands(
  chain: Chain,
  tx: TronTransactionJson,
  solid: ChainBlockHeader,
): Promise<boolean> {
  const raw = tx.raw_data;
  const expiration = raw.expiration;
  if (typeof expiration !== 'number' || !Number.isSafeInteger(expiration) || solid.timestamp <= expiration)
    return false;
  if (!/^[0-9a-f]{4}$/i.test(raw.ref_block_bytes) || !/^[0-9a-f]{16}$/i.test(raw.ref_block_hash)) return false;
  // The reference block was the newest one when the transaction was built: of the heights with
  // those 16 low bits, the one nearest to where the chain was then (3 s a block).
  const builtAt = typeof raw.timestamp === 'number' && Number.isSafeInteger(raw.timestamp) ? raw.timestamp : expiration;
  const estimate = solid.number - Math.round((solid.timestamp - builtAt) / BLOCK_MS);
  const low = parseInt(raw.ref_block_bytes, 16);
  let ref = estimate - ((((estimate - low) % REF_WRAP) + REF_WRAP) % REF_WRAP);
  if (estimate - ref > REF_WRAP / 2) ref += REF_WRAP;
  if (ref < 0 || ref > solid.number) return false;
  // Enough blocks to pass the expiration (3 s each), and a few more for missed slots.
  const chunk = Math.min(MAX_BLOCKS, Math.max(5, Math.ceil((expiration - builtAt) / BLOCK_MS) + 5));
  return runFrom(chain, ref, chunk, raw.ref_block_hash.toLowerCase(), tx.txID.toLowerCase(), expiration, solid);
}

/** Whether `b` is the solid chain's block at its height: the solid block, or the solidity API's block there. */
async function onSolidChain(chain: Chain, b: BlockTxIds, solid: ChainBlockHeader): Promise<boolean> {
  if (b.number > solid.number) return false;
  if (b.number === solid.number) return b.id.toLowerCase() === solid.id.toLowerCase();
  const id = await chain.getBlockId(b.number, { solid: true });
  return id !== null && id.toLowerCase() === b.id.toLowerCase();
}

async function runFrom(
  chain: Chain,
  ref: number,
  chunk: number,
  refHash: string,
  txid: string,
  expiration: number,
  solid: ChainBlockHeader,
): Promise<boolean> {
  let previous: BlockTxIds | null = null;
  for (let from = ref; from < ref + MAX_BLOCKS; from += chunk) {
    const blocks = await chain.getBlockTxIds(from, from + chunk);
    if (blocks.length === 0) return false;
    for (const b of blocks) {
      if (previous === null) {
        if (b.number !== ref) return false;
        // Another block at the reference height, below the solid one: the block the transaction
        // names (bytes 8..16 of its id) is not on the chain, and TAPOS refuses it in every block.
        if (b.id.slice(16, 32).toLowerCase() !== refHash) return onSolidChain(chain, b, solid);
      } else {
        if (b.number !== previous.number + 1 || b.parentHash.toLowerCase() !== previous.id.toLowerCase()) return false;
        if (b.txIDs.some((t) => t.toLowerCase() === txid)) return false;
        // No block from here on can hold it; and this one is on the chain no fork can replace.
        if (b.timestamp > expiration) return onSolidChain(chain, b, solid);
      }
      previous = b;
    }
  }
  return false;
}

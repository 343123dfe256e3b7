/**
 * What became of a stored transaction, for the broadcast step and the confirm step: it landed (a
 * receipt in a solid block), it may still land, or it provably never can. It is given up only
 * when the solid block is past its expiration, the node knows no such txid at the solid height,
 * and the blocks from its reference block to past its expiration, read as one linked run, do not
 * hold it (chain/absence.ts); only then is the payout signed anew.
 */
import type { ChainBlockHeader, TronTransactionJson } from '../../chain/client.js';
import { transactionOutcome, type TxOutcome } from '../../chain/outcome.js';
import type { PayoutRow } from '../store.js';
import type { PayoutWorkerContext } from './context.js';

export type Fate =
  | { kind: 'landed'; outcome: Extract<TxOutcome, { state: 'success' | 'failed' }> }
  | { kind: 'pending' }
  | { kind: 'dead' };

export async function fateOf(c: PayoutWorkerContext, row: PayoutRow, solid: ChainBlockHeader): Promise<Fate> {
  const txid = row.tx_hash as string;
  const outcome = await transactionOutcome(c.chain, txid, { solid: true });
  if (outcome.state === 'success' || outcome.state === 'failed') return { kind: 'landed', outcome };
  if (outcome.state === 'undecided') return { kind: 'pending' };
  // A block holding it would have a timestamp ≤ its expiration; solid past that and no trace
  // of the txid at the solid height means no block can ever hold it.
  if (row.tx_expiration === null || solid.timestamp <= row.tx_expiration) return { kind: 'pending' };
  if (await c.chain.getTransaction(txid, { solid: true })) return { kind: 'pending' };
  // "Not found" proves nothing (a backend behind the node's load balancer that lags, an empty
  // answer): the blocks it could be in must be read and shown not to hold it (chain/absence.ts).
  // That reads ~20 blocks: after a failed proof, only once the solid height has moved on.
  const tx = JSON.parse(row.signed_tx as string) as TronTransactionJson;
  return (await c.proofs.neverLands(c.chain, row.id, tx, solid)) ? { kind: 'dead' } : { kind: 'pending' };
}

/** Back to queued, its dead transaction dropped (audited by context.move): signed anew next. */
export function resign(c: PayoutWorkerContext, row: PayoutRow): Promise<boolean> {
  c.log.warn({ payout: row.id, txid: row.tx_hash }, 'payout transaction expired unsent; it will be signed anew');
  return c.move(row, {
    to: 'queued',
    patch: { signed_tx: null, tx_hash: null, tx_expiration: null, fee_limit: null, wait_reason: null },
  });
}

/**
 * Every transaction the hot wallet's account owns is an act of its keys, whatever its contract
 * type and whichever key signed it (an `AccountPermissionUpdateContract` can give the account to
 * other keys). Its TRX and catalog-token transfers are recorded as transfers (hot-wallet.ts); every
 * other transaction it owns is recorded here as an act: a contract call (with or without a TRX
 * `call_value`, an `approve` included), a TRC-10 transfer, a freeze, a delegation, a vote, a
 * permission change. Each is matched by txid like a transfer (a payout's or a sweep's signed
 * transaction, or the operator's acknowledgement); one paygate did not sign raises the same alert.
 * An act carries no catalog asset ('', or `trc10:<id>` for a TRC-10 transfer), so it is never a
 * candidate for a held payout.
 */
import { UNREADABLE_AMOUNT } from '../chain/parse.js';
import type { ScanBlock } from '../chain/client.js';
import { base58OrNull } from './chain-match.js';
import type { OutgoingTransfer } from './hot-wallet.js';

/** The log index of an act's row: one row per transaction (transfers use -1 and the log's index). */
export const ACT_LOG_INDEX = -2;

/** The block's acts of the hot wallet that no recorded transfer out already stands for. */
export function actsOf(block: ScanBlock, transfers: OutgoingTransfer[]): OutgoingTransfer[] {
  if (block.acts.length === 0) return [];
  const recorded = new Set(transfers.filter((t) => t.block === block).map((t) => t.txHash));
  const out: OutgoingTransfer[] = [];
  for (const act of block.acts) {
    if (act.txID === '' || recorded.has(act.txID)) continue;
    recorded.add(act.txID);
    out.push({
      txHash: act.txID,
      logIndex: ACT_LOG_INDEX,
      // A TRC-10 token is named by its id; no catalog code looks like this.
      asset: act.tokenId === '' ? '' : `trc10:${act.tokenId}`,
      decimals: 0,
      to: act.toHex === '' ? '' : (base58OrNull(act.toHex) ?? act.toHex),
      // What the act moved is shown to the operator; one the JSON could not carry exactly is shown as 0.
      amount: act.amount === UNREADABLE_AMOUNT || act.amount < 0n ? 0n : act.amount,
      block,
      contractType: act.contractType,
    });
  }
  return out;
}

/**
 * What became of a transaction we sent, from the node's two answers: its info (the receipt, set
 * once it is in a block) and, for transactions the VM did not run (plain TRX transfers, resource
 * contracts: their receipt has no result), the transaction's own `ret[0].contractRet`. Only an
 * explicit SUCCESS is success; an explicit other value is a failure; anything missing is
 * undecided (ask again), never a guess either way: a payout wrongly failed releases money that
 * has left, a payout wrongly confirmed debits money that has not.
 */
import type { TronClient, TxInfo } from './client.js';

export type TxOutcome =
  | { state: 'absent' }
  | { state: 'undecided'; info: TxInfo }
  | { state: 'success'; info: TxInfo }
  | { state: 'failed'; info: TxInfo; reason: string };

export async function transactionOutcome(
  chain: TronClient,
  txid: string,
  opts: { solid?: boolean } = {},
): Promise<TxOutcome> {
  const info = await chain.getTransactionInfo(txid, opts);
  if (!info) return { state: 'absent' };
  if (info.result === 'FAILED')
    return {
      state: 'failed',
      info,
      reason: info.receiptResult !== 'DEFAULT' ? info.receiptResult : (info.message ?? 'FAILED'),
    };
  if (info.result === 'SUCCESS') return { state: 'success', info };
  const tx = await chain.getTransaction(txid, opts);
  if (!tx?.contractRet) return { state: 'undecided', info };
  return tx.contractRet === 'SUCCESS' ? { state: 'success', info } : { state: 'failed', info, reason: tx.contractRet };
}

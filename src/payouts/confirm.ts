/**
 * `payout confirm <id> --txid T` (and `POST /admin/v1/payouts/{id}/confirm`): the operator settles a
 * held payout that the chain shows was paid by a transfer out paygate did not sign (a payout the
 * restore lost and the merchant asked for again, or one whose match was ambiguous). The transfer
 * must be recorded (hot_wallet_transfer_not_found), final, claimed by nothing and the payout held
 * (invalid_state), and have the payout's asset, address and amount (transfer_mismatch). The status,
 * the ledger's debit, the `payout.confirmed` event, the transfer's match (it leaves the alert's
 * count) and the audit record commit together; a refusal changes nothing.
 */
import { recordAudit } from '../audit/store.js';
import type { Clock } from '../clock.js';
import { writeTx, type Db } from '../db/database.js';
import { AppError } from '../errors.js';
import { formatUnits } from '../money.js';
import { keyOf, OPEN } from '../restore/payout-matching.js';
import { assertReadingDone } from '../restore/chain-reading.js';
import { operatorView, type OperatorPayoutView } from './operator-view.js';
import { findPayoutForOperator } from './store.js';
import { transitionPayout } from './transitions.js';

const TXID = /^[0-9a-f]{64}$/;

export async function confirmPayoutFromChain(
  db: Db,
  clock: Clock,
  actor: string,
  id: string,
  txidInput: string,
): Promise<OperatorPayoutView> {
  const txid = txidInput.trim().toLowerCase().replace(/^0x/, '');
  if (!TXID.test(txid))
    throw new AppError('invalid_argument', 'txid: 64 hexadecimal characters, a TRON transaction id');
  return writeTx(db, async (trx) => {
    const row = await findPayoutForOperator(trx, id);
    if (!row) throw new AppError('payout_not_found', `Payout ${id} does not exist`);
    const transfers = await trx.selectFrom('hot_wallet_transfers').selectAll().where('tx_hash', '=', txid).execute();
    if (transfers.length === 0)
      throw new AppError(
        'hot_wallet_transfer_not_found',
        `No transfer out of the hot wallet in transaction ${txid} is recorded: the watcher records one once its block is scanned (paygate wallet transfers lists them)`,
      );
    const cursor = await trx.selectFrom('chain_cursor').select('solid_number').where('id', '=', 1).executeTakeFirst();
    const solid = cursor?.solid_number ?? -1;
    if (transfers.some((t) => t.block_number > solid))
      throw new AppError(
        'invalid_state',
        `Transaction ${txid} is in block ${transfers[0]!.block_number}, above the solid height ${solid}: confirm it once its block is final`,
      );
    const claimed = transfers.find((t) => t.kind !== 'unknown');
    if (claimed)
      throw new AppError(
        'invalid_state',
        `Transaction ${txid} is accounted for already (${claimed.kind}${claimed.payout_id ? `, payout ${claimed.payout_id}` : ''}): it cannot pay another payout`,
      );
    if (row.hold_reason === null || !OPEN.includes(row.status))
      throw new AppError(
        'invalid_state',
        `Payout ${row.id} is ${row.status} and not held: only a held payout is settled from the chain`,
      );
    await assertReadingDone(trx, row, 'confirm');
    const paid = transfers.find((t) => keyOf(t) === keyOf(row));
    if (!paid) {
      const t = transfers[0]!;
      throw new AppError(
        'transfer_mismatch',
        `Transaction ${txid} sent ${formatUnits(t.amount, t.decimals)} ${t.asset} to ${t.to_address}; payout ${row.id} is ${formatUnits(row.amount, row.decimals)} ${row.asset} to ${row.to_address}`,
      );
    }
    const { row: next } = await transitionPayout(trx, clock, row, {
      to: 'confirmed',
      actor,
      foundOnChain: true,
      patch: { tx_hash: txid, hold_reason: null, wait_reason: null },
    });
    await trx
      .updateTable('hot_wallet_transfers')
      .set({ kind: 'restore_match', payout_id: row.id })
      .where('tx_hash', '=', txid)
      .where('log_index', '=', paid.log_index)
      .execute();
    await recordAudit(trx, clock, {
      actor,
      action: 'payout.confirm_from_chain',
      subjectType: 'payout',
      subjectId: row.id,
      merchantId: row.merchant_id,
      details: { status: row.status, tx_hash: txid, block_number: paid.block_number, hold_reason: row.hold_reason },
    });
    return operatorView(next);
  });
}

/**
 * The operator's view of what left the hot wallet (`wallet transfers`, the console) and their answer
 * to a transfer paygate did not sign (`wallet transfer acknowledge`): "it was mine" (funds moved to
 * cold storage on purpose). An acknowledged transfer leaves the alert's count and is never matched
 * to a payout held since a restore. A stolen key looks exactly like an unknown transfer, so the
 * acknowledgement is audited (who, when, why) and refused where it could hide a payout: one paygate
 * signed, one a payout that is not final may be, or any while the chain since a restore is still being read.
 */
import { recordAudit } from '../audit/store.js';
import type { Clock } from '../clock.js';
import { writeTx, type Db, type Executor } from '../db/database.js';
import type { HotTransferKind } from '../db/tables/hot-wallet.js';
import { AppError } from '../errors.js';
import type { PageKey } from '../http/pagination.js';
import { formatUnits } from '../money.js';
import { openPayoutsMatching } from '../restore/payout-matching.js';
import { readingPending } from '../restore/chain-reading.js';
import { sql } from 'kysely';

export interface HotWalletTransferView {
  tx_hash: string;
  /** -1 for a TRX transfer, else the token Transfer log's index in its transaction. */
  log_index: number;
  block_number: number;
  block_time: string;
  asset: string;
  to_address: string;
  /** In the asset's units (decimal text). */
  amount: string;
  /** What it is: a payout's or a sweep's transaction, a payout found after a restore, acknowledged, or unknown. */
  kind: HotTransferKind;
  payout_id: string | null;
  sweep_id: string | null;
  acknowledged_by: string | null;
  acknowledged_at: string | null;
  acknowledge_reason: string | null;
}

export interface TransferListInput {
  /** Only those paygate did not sign and nobody accounted for (the alert's). */
  unknown?: boolean;
  /** Only the transfers of this transaction. */
  txid?: string;
  limit: number;
  /** Strictly after this (block_time, `txid:log_index`), newest first: the console's next page. */
  after?: PageKey | null;
}

/** A transfer's place in the list: its block time and `txid:log_index`. */
export const transferKey = (t: HotWalletTransferView): PageKey => ({
  at: t.block_time,
  id: `${t.tx_hash}:${t.log_index}`,
});

function keyParts(key: PageKey): { txid: string; logIndex: number } {
  const i = key.id.lastIndexOf(':');
  const logIndex = Number(key.id.slice(i + 1));
  if (i < 0 || !Number.isInteger(logIndex))
    throw new AppError('invalid_argument', 'cursor: not one this server returned');
  return { txid: key.id.slice(0, i), logIndex };
}

/** Transfers out of the hot wallet, newest first. */
export async function listHotWalletTransfers(db: Executor, input: TransferListInput): Promise<HotWalletTransferView[]> {
  let q = db
    .selectFrom('hot_wallet_transfers as t')
    .leftJoin('hot_wallet_acknowledgements as a', 'a.tx_hash', 't.tx_hash')
    .select([
      't.tx_hash',
      't.log_index',
      't.block_number',
      't.block_time',
      't.asset',
      't.to_address',
      't.amount',
      't.decimals',
      't.kind',
      't.payout_id',
      't.sweep_id',
      'a.acknowledged_by',
      'a.acknowledged_at',
      'a.reason',
    ]);
  if (input.unknown) q = q.where('t.kind', '=', 'unknown');
  if (input.txid !== undefined) q = q.where('t.tx_hash', '=', input.txid);
  if (input.after) {
    const { txid, logIndex } = keyParts(input.after);
    q = q.where(sql<boolean>`(t.block_time, t.tx_hash, t.log_index) < (${input.after.at}, ${txid}, ${logIndex})`);
  }
  const rows = await q
    .orderBy('t.block_time', 'desc')
    .orderBy('t.tx_hash', 'desc')
    .orderBy('t.log_index', 'desc')
    .limit(input.limit)
    .execute();
  return rows.map((r) => ({
    tx_hash: r.tx_hash,
    log_index: r.log_index,
    block_number: r.block_number,
    block_time: r.block_time,
    asset: r.asset,
    to_address: r.to_address,
    amount: formatUnits(r.amount, r.decimals),
    kind: r.kind,
    payout_id: r.payout_id,
    sweep_id: r.sweep_id,
    acknowledged_by: r.kind === 'acknowledged' ? r.acknowledged_by : null,
    acknowledged_at: r.kind === 'acknowledged' ? r.acknowledged_at : null,
    acknowledge_reason: r.kind === 'acknowledged' ? r.reason : null,
  }));
}

export interface AcknowledgedTransfer {
  tx_hash: string;
  acknowledged_by: string;
  acknowledged_at: string;
  reason: string;
  /** Every transfer out of the transaction (a token transaction may have several), now acknowledged. */
  transfers: HotWalletTransferView[];
  note: string;
}

export const ACKNOWLEDGED_NOTE =
  'acknowledged as the operator’s: no longer counted by paygate_hot_wallet_unknown_transfers, and never matched to a payout held since a restore';

const TXID = /^[0-9a-f]{64}$/;

/** `wallet transfer acknowledge <txid> --reason`: the operator says a transfer out paygate did not sign was theirs. */
export async function acknowledgeTransfer(
  db: Db,
  clock: Clock,
  actor: string,
  txidInput: string,
  reasonInput: string,
): Promise<AcknowledgedTransfer> {
  const txid = txidInput.trim().toLowerCase().replace(/^0x/, '');
  if (!TXID.test(txid))
    throw new AppError('invalid_argument', 'txid: 64 hexadecimal characters, a TRON transaction id');
  const reason = reasonInput.trim();
  if (reason === '' || reason.length > 500)
    throw new AppError(
      'invalid_argument',
      '--reason: say why it was yours, 1 to 500 characters (kept in the audit log)',
    );
  return writeTx(db, async (trx) => {
    const rows = await trx.selectFrom('hot_wallet_transfers').selectAll().where('tx_hash', '=', txid).execute();
    if (rows.length === 0)
      throw new AppError(
        'hot_wallet_transfer_not_found',
        `No transfer out of the hot wallet in transaction ${txid} is recorded: the watcher records one once its block is scanned (paygate wallet transfers lists them)`,
      );
    const signed = rows.find((r) => r.kind !== 'unknown' && r.kind !== 'acknowledged');
    if (signed)
      throw new AppError(
        'invalid_state',
        signed.kind === 'sweep'
          ? `Transaction ${txid} is sweep ${signed.sweep_id}'s top-up: paygate signed it, there is nothing to acknowledge`
          : `Transaction ${txid} is payout ${signed.payout_id}'s (${signed.kind === 'payout' ? 'paygate signed it' : 'found on the chain after a restore'}): there is nothing to acknowledge`,
      );
    const done = await trx
      .selectFrom('hot_wallet_acknowledgements')
      .selectAll()
      .where('tx_hash', '=', txid)
      .executeTakeFirst();
    if (done)
      throw new AppError(
        'invalid_state',
        `Transaction ${txid} was acknowledged by ${done.acknowledged_by} at ${done.acknowledged_at} ("${done.reason}")`,
      );
    if (await readingPending(trx))
      throw new AppError(
        'invalid_state',
        `The chain since a restore is still being read and transaction ${txid} may be a held payout's; acknowledge it once the reading is done (paygate payout list --unknown-on-chain)`,
      );
    for (const r of rows) {
      const open = await openPayoutsMatching(trx, r);
      if (open.length > 0)
        throw new AppError(
          'invalid_state',
          `Transaction ${txid} has the asset, address and amount of payout(s) ${open.join(', ')}, not final: it may be theirs. Settle them first (paygate payout list --unknown-on-chain; payout confirm --txid if it paid one), then acknowledge it`,
        );
    }
    const at = clock.now().toISOString();
    await trx
      .insertInto('hot_wallet_acknowledgements')
      .values({ tx_hash: txid, reason, acknowledged_by: actor, acknowledged_at: at })
      .execute();
    await trx
      .updateTable('hot_wallet_transfers')
      .set({ kind: 'acknowledged' })
      .where('tx_hash', '=', txid)
      .where('kind', '=', 'unknown')
      .execute();
    await recordAudit(trx, clock, {
      actor,
      action: 'hot_wallet.transfer_acknowledged',
      subjectType: 'hot_wallet_transfer',
      subjectId: txid,
      details: {
        reason,
        transfers: rows.map((r) => ({
          asset: r.asset,
          to_address: r.to_address,
          amount_units: r.amount,
          block_number: r.block_number,
        })),
      },
    });
    const transfers = await listHotWalletTransfers(trx, { txid, limit: rows.length });
    return { tx_hash: txid, acknowledged_by: actor, acknowledged_at: at, reason, transfers, note: ACKNOWLEDGED_NOTE };
  });
}

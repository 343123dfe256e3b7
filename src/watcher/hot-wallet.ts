/**
 * The chain is the record of what left the hot wallet: every transfer out of it (a successful TRX
 * `TransferContract` whose owner is the hot wallet, or a catalog token's `Transfer` log whose sender
 * is) is recorded in the watcher's write transaction and matched by txid to what paygate signed: a
 * payout's stored transaction or a sweep's fee top-up. A transfer paygate did not sign is `unknown`:
 * a stolen key, another program using the same key, or a restore whose database lost the record
 * (restore/chain-reading.ts matches those to the held payouts). Unknown transfers are logged as
 * errors and counted by `paygate_hot_wallet_unknown_transfers` until the operator acknowledges one
 * as theirs (wallet/transfers.ts).
 */
import type { ScanBlock, ScanTransferLog } from '../chain/client.js';
import { UNREADABLE_AMOUNT } from '../chain/parse.js';
import type { Executor, Tx } from '../db/database.js';
import type { HotTransferKind, HotWalletTransfersTable } from '../db/tables/hot-wallet.js';
import type { Logger } from 'pino';
import { base58OrNull, type TokenSet } from './chain-match.js';

/** A transfer out of the hot wallet found in a scanned block. */
export interface OutgoingTransfer {
  txHash: string;
  logIndex: number;
  asset: string;
  decimals: number;
  to: string;
  amount: bigint;
  block: ScanBlock;
  /** The transaction's contract type, when known (an act's, hot-wallet-acts.ts, or a TRX transfer's). */
  contractType?: string;
}

/** The block's successful transfers out of `hotHex` (TRX and the catalog's tokens). */
export function outgoingOf(
  block: ScanBlock,
  logs: ScanTransferLog[] | null,
  hotHex: string | null,
  tokens: TokenSet,
): OutgoingTransfer[] {
  if (hotHex === null) return [];
  const out: OutgoingTransfer[] = [];
  const native = tokens.native;
  for (const tx of native ? block.transfers : []) {
    if (tx.ownerHex !== hotHex || tx.amount <= 0n) continue;
    // Never recorded rounded: the scan stops here, loudly, as for a deposit.
    if (tx.amount === UNREADABLE_AMOUNT)
      throw new Error(
        `TRX transfer ${tx.txID} out of the hot wallet in block ${block.number} has an unreadable amount`,
      );
    out.push({
      txHash: tx.txID,
      logIndex: -1,
      asset: native!.code,
      decimals: native!.decimals,
      to: base58OrNull(tx.toHex) ?? tx.toHex,
      amount: tx.amount,
      block,
      contractType: 'TransferContract',
    });
  }
  const succeeded = new Set(block.calls);
  for (const log of logs ?? []) {
    if (log.blockNumber !== block.number || !succeeded.has(log.txID)) continue;
    const token = tokens.tokenOfLog(log.address);
    if (!token || `41${log.from.slice(-40).toLowerCase()}` !== hotHex) continue;
    const data = log.data.replace(/^0x/, '');
    if (!/^[0-9a-fA-F]{64}/.test(data))
      throw new Error(
        `node answered the ${token.code} Transfer log ${log.index} of ${log.txID} in block ${block.number} without its amount; asking again`,
      );
    const amount = BigInt(`0x${data.slice(0, 64)}`);
    if (amount <= 0n) continue;
    const toHex = `41${log.to.slice(-40).toLowerCase()}`;
    out.push({
      txHash: log.txID,
      logIndex: log.index,
      asset: token.code,
      decimals: token.decimals,
      to: base58OrNull(toHex) ?? toHex,
      amount,
      block,
    });
  }
  return out;
}

/**
 * Records the transfers out (and the other acts of the hot wallet, hot-wallet-acts.ts), each matched by txid to a payout's or a sweep's signed transaction
 * (stored before any broadcast, so a transaction paygate signed is always known by the time it is in
 * a block), or to the operator's acknowledgement (wallet/transfers.ts). Inside the watcher's write transaction; a transfer already recorded keeps its match.
 * Returns the unknown ones newly recorded.
 */
export async function recordOutgoing(
  trx: Tx,
  at: string,
  transfers: OutgoingTransfer[],
): Promise<HotWalletTransfersTable[]> {
  if (transfers.length === 0) return [];
  const txids = [...new Set(transfers.map((t) => t.txHash))];
  const payouts = new Map(
    (await trx.selectFrom('payouts').select(['id', 'tx_hash']).where('tx_hash', 'in', txids).execute()).map((p) => [
      p.tx_hash as string,
      p.id,
    ]),
  );
  const sweeps = new Map(
    (
      await trx
        .selectFrom('sweep_txs')
        .select(['sweep_id', 'txid'])
        .where('txid', 'in', txids)
        .where('signer', '=', 'hot')
        .execute()
    ).map((t) => [t.txid, t.sweep_id]),
  );
  // The operator's acknowledgement is kept by txid: a transaction a fork moved to another block is
  // still theirs.
  const acknowledged = new Set(
    (await trx.selectFrom('hot_wallet_acknowledgements').select('tx_hash').where('tx_hash', 'in', txids).execute()).map(
      (a) => a.tx_hash,
    ),
  );
  const fresh: HotWalletTransfersTable[] = [];
  for (const t of transfers) {
    const payoutId = payouts.get(t.txHash) ?? null;
    const sweepId = payoutId === null ? (sweeps.get(t.txHash) ?? null) : null;
    const kind: HotTransferKind =
      payoutId !== null
        ? 'payout'
        : sweepId !== null
          ? 'sweep'
          : acknowledged.has(t.txHash)
            ? 'acknowledged'
            : 'unknown';
    const row: HotWalletTransfersTable = {
      tx_hash: t.txHash,
      log_index: t.logIndex,
      asset: t.asset,
      to_address: t.to,
      amount: t.amount.toString(),
      decimals: t.decimals,
      block_number: t.block.number,
      block_hash: t.block.id,
      block_time: new Date(t.block.timestamp).toISOString(),
      kind,
      payout_id: payoutId,
      sweep_id: sweepId,
      detected_at: at,
      contract_type: t.contractType ?? null,
    };
    const r = await trx
      .insertInto('hot_wallet_transfers')
      .values(row)
      .onConflict((oc) => oc.columns(['tx_hash', 'log_index']).doNothing())
      .executeTakeFirst();
    if (kind === 'unknown' && (r.numInsertedOrUpdatedRows ?? 0n) > 0n) fresh.push(row);
  }
  return fresh;
}

/** A fork replaced the blocks above `ancestor`: their transfers out are no longer on the chain. */
export async function dropOutgoingAbove(trx: Tx, ancestor: number): Promise<void> {
  await trx.deleteFrom('hot_wallet_transfers').where('block_number', '>', ancestor).execute();
}

/** Transfers out that paygate did not sign, no restore matched and the operator did not acknowledge: the alert's count. */
export async function unknownTransferCount(db: Executor): Promise<number> {
  const r = await db
    .selectFrom('hot_wallet_transfers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('kind', '=', 'unknown')
    .executeTakeFirst();
  return Number(r?.n ?? 0);
}

export interface UnknownTransferView {
  tx_hash: string;
  asset: string;
  to_address: string;
  /** Base units, integer text. */
  amount_units: string;
  block_number: number;
  block_time: string;
}

/** The newest unknown transfers out (watcher status, /readyz). */
export async function unknownTransfers(db: Executor, limit = 20): Promise<UnknownTransferView[]> {
  const rows = await db
    .selectFrom('hot_wallet_transfers')
    .select(['tx_hash', 'asset', 'to_address', 'amount', 'block_number', 'block_time'])
    .where('kind', '=', 'unknown')
    .orderBy('block_number', 'desc')
    .limit(limit)
    .execute();
  return rows.map(({ amount, ...r }) => ({ ...r, amount_units: amount }));
}

/** Logs each unknown transfer out as an error: the operator's signal of a key used outside paygate. */
export function logUnknown(logger: Logger, rows: HotWalletTransfersTable[], restoreReading: boolean): void {
  for (const r of rows) {
    const fields = {
      tx_hash: r.tx_hash,
      asset: r.asset,
      to_address: r.to_address,
      amount_units: r.amount,
      block_number: r.block_number,
      contract_type: r.contract_type,
    };
    if (restoreReading)
      logger.warn(
        fields,
        'hot wallet transfer out not signed by this database: matched to the payouts held since the restore',
      );
    else
      logger.error(
        fields,
        'hot wallet transfer out that paygate did not sign: the hot wallet key is used outside paygate (check at once)',
      );
  }
}

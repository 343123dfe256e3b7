/**
 * One transaction of a sweep, exactly once: build, sign, store the signed bytes and txid (with the
 * lease fencing check) and only then broadcast. A stored transaction is resolved by polling its
 * info; until it is in a block the same bytes are broadcast again (DUP_TRANSACTION_ERROR means the
 * node has them). It is given up ("expired") only once its expiration is below the solid block's
 * time and the solidity node does not know it: then it can never be included, and only then may
 * the sweep sign anew.
 */
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { TronClient, TronTransactionJson } from '../chain/client.js';
import type { ProofThrottle } from '../chain/absence.js';
import { transactionOutcome } from '../chain/outcome.js';
import type { CatalogAsset } from '../assets/catalog.js';
import { isUniqueViolation, writeTx, type Db } from '../db/database.js';
import { LeaseLostError, type WorkerLease } from '../runtime/lease.js';
import type { Signer } from '../wallet/signer.js';
import type { Plan } from './plan.js';
import { findSweep, insertTx, txsOf, updateOpenSweep, updateTx, type SweepRow, type SweepTxRow } from './store.js';

export interface StepContext {
  db: Db;
  clock: Clock;
  chain: TronClient;
  lease: WorkerLease;
  /** The only way to the keys: the sweeper's deposit keys and the hot wallet key. */
  signer: Signer;
  logger: Logger;
  hot: string;
  /** Failed proofs of absence per sweep transaction, not read again every tick. */
  proofs: ProofThrottle;
}

export class SweepConflictError extends Error {}

async function build(
  c: StepContext,
  sweep: SweepRow,
  asset: CatalogAsset,
  plan: Extract<Plan, { kind: 'tx' }>,
): Promise<TronTransactionJson> {
  switch (plan.step) {
    case 'top_up':
      return c.chain.buildTrxTransfer({ from: c.hot, to: sweep.address, amount: plan.amount });
    case 'delegate_energy':
      return c.chain.buildDelegateResource({
        owner: c.hot,
        receiver: sweep.address,
        amount: plan.amount,
        resource: 'ENERGY',
      });
    case 'undelegate_energy':
      return c.chain.buildUnDelegateResource({
        owner: c.hot,
        receiver: sweep.address,
        amount: plan.amount,
        resource: 'ENERGY',
      });
    case 'transfer':
      return asset.type === 'native'
        ? c.chain.buildTrxTransfer({ from: sweep.address, to: c.hot, amount: plan.amount })
        : c.chain.buildTrc20Transfer({
            contract: asset.contract as string,
            from: sweep.address,
            to: c.hot,
            amount: plan.amount,
            feeLimit: plan.feeLimit as bigint,
          });
  }
}

/** Signs the planned transaction, records it, then broadcasts it. */
export async function signAndSend(
  c: StepContext,
  sweep: SweepRow,
  asset: CatalogAsset,
  plan: Extract<Plan, { kind: 'tx' }>,
  seq: number,
): Promise<SweepTxRow> {
  // Known lost (a pause overran the grant): nothing is signed; the new holder takes the step.
  if (!c.lease.held()) throw new LeaseLostError(c.lease.holder);
  const unsigned = await build(c, sweep, asset, plan);
  const signed =
    plan.signer === 'hot'
      ? await c.signer.withHotKey((key) => c.chain.sign(unsigned, key))
      : await c.signer.withDepositKey(sweep.derivation_index, sweep.address, (key) => c.chain.sign(unsigned, key));
  const at = c.clock.now().toISOString();
  const row: Omit<SweepTxRow, 'id'> = {
    sweep_id: sweep.id,
    seq,
    step: plan.step,
    signer: plan.signer,
    txid: signed.txID,
    signed: JSON.stringify(signed),
    amount: plan.amount.toString(),
    expiration: signed.raw_data.expiration ?? 0,
    status: 'signed',
    broadcast_code: null,
    receipt_result: null,
    fee: null,
    block_number: null,
    created_at: at,
    updated_at: at,
  };
  await writeTx(c.db, async (trx) => {
    await c.lease.assertHeld(trx);
    const cur = await findSweep(trx, sweep.id);
    if (cur?.status !== 'open') throw new SweepConflictError(`sweep ${sweep.id} is no longer open`);
    try {
      await insertTx(trx, row);
    } catch (e) {
      // Another signer took this step number first (with other bytes, or with the very same
      // transaction when both built it from the same block: then its txid is the one refused, and
      // which of the two keys refuses first is the engine's choice): ours is dropped unbroadcast.
      if (isUniqueViolation(e, 'sweep_txs', ['sweep_id', 'seq']) || isUniqueViolation(e, 'sweep_txs', ['txid']))
        throw new SweepConflictError(`sweep ${sweep.id} step ${seq} is already signed`);
      throw e;
    }
  });
  const stored = (await txsOf(c.db, sweep.id)).find((t) => t.seq === seq) as SweepTxRow;
  c.logger.info(
    {
      sweep: sweep.id,
      address: sweep.address,
      asset: sweep.asset,
      step: plan.step,
      txid: row.txid,
      amount: row.amount,
    },
    'sweep transaction signed',
  );
  try {
    await broadcast(c, stored);
  } catch (err) {
    if (err instanceof LeaseLostError) throw err;
    // Stored: the next tick resolves it (broadcasts the same bytes again, or finds them in a block).
    c.logger.warn(
      { err, sweep: sweep.id, txid: row.txid },
      'sweep broadcast did not complete; it is retried with the same bytes',
    );
  }
  return stored;
}

/**
 * Sends the stored bytes, only while the lease is still this process's (checked in the database
 * just before): a holder that resumes after a takeover sends nothing. The same bytes sent twice
 * are one transaction on chain, so the check's remaining window (between it and the send) risks
 * nothing but a duplicate answer.
 */
export async function broadcast(c: StepContext, tx: SweepTxRow): Promise<void> {
  await c.lease.confirm();
  const answer = await c.chain.broadcast(JSON.parse(tx.signed) as TronTransactionJson);
  const at = c.clock.now().toISOString();
  if (answer.ok) {
    await updateTx(c.db, tx.id, ['signed', 'broadcast'], {
      status: 'broadcast',
      broadcast_code: answer.duplicate ? 'DUP_TRANSACTION_ERROR' : null,
      updated_at: at,
    });
  } else {
    // Refused now does not prove it never lands (an earlier broadcast may have reached the pool).
    await updateTx(c.db, tx.id, ['signed', 'broadcast'], { broadcast_code: answer.code, updated_at: at });
    c.logger.warn(
      { sweep: tx.sweep_id, txid: tx.txid, step: tx.step, code: answer.code, message: answer.message },
      'sweep broadcast refused',
    );
  }
}

export type Resolution = 'pending' | 'confirmed' | 'failed' | 'expired';

/** Moves a stored, unresolved transaction on: confirmed, failed, expired, or broadcast again. */
export async function resolve(c: StepContext, tx: SweepTxRow): Promise<Resolution> {
  const outcome = await transactionOutcome(c.chain, tx.txid);
  const at = c.clock.now().toISOString();
  // In a block but its outcome not stated yet: ask again, never guess (a wrong `failed` re-sends).
  if (outcome.state === 'undecided') return 'pending';
  if (outcome.state !== 'absent') {
    c.proofs.forget(tx.id);
    const { info } = outcome;
    const ok = outcome.state === 'success';
    await updateTx(c.db, tx.id, ['signed', 'broadcast'], {
      status: ok ? 'confirmed' : 'failed',
      receipt_result: ok ? info.receiptResult : outcome.reason,
      fee: info.fee.toString(),
      block_number: info.blockNumber,
      updated_at: at,
    });
    return ok ? 'confirmed' : 'failed';
  }
  const head = await c.chain.getHeadBlock();
  if (head.timestamp <= tx.expiration) {
    await broadcast(c, tx);
    return 'pending';
  }
  const solid = await c.chain.getSolidBlock();
  if (solid.timestamp <= tx.expiration) return 'pending';
  const [known, knownInfo] = await Promise.all([
    c.chain.getTransaction(tx.txid, { solid: true }),
    c.chain.getTransactionInfo(tx.txid, { solid: true }),
  ]);
  if (known || knownInfo) return 'pending';
  // "Not found" is no proof (a lagging backend, an empty answer): the blocks must show it absent
  // (~20 blocks read; after a failed proof, again only once the solid height has moved on).
  if (!(await c.proofs.neverLands(c.chain, tx.id, JSON.parse(tx.signed) as TronTransactionJson, solid)))
    return 'pending';
  await updateTx(c.db, tx.id, ['signed', 'broadcast'], { status: 'expired', updated_at: at });
  c.logger.warn(
    { sweep: tx.sweep_id, txid: tx.txid, step: tx.step },
    'sweep transaction expired unconfirmed; the step will be signed anew',
  );
  return 'expired';
}

/** The sweep's money columns, recomputed from its transactions (read and written in one transaction). */
export function refreshTotals(db: Db, sweepId: string, at: string): Promise<void> {
  return writeTx(db, async (trx) => {
    const txs = await txsOf(trx, sweepId);
    let fee = 0n;
    let topUp = 0n;
    let delegated = 0n;
    let amount: string | null = null;
    for (const t of txs) {
      if (t.fee) fee += BigInt(t.fee);
      if (t.status !== 'confirmed') continue;
      if (t.step === 'top_up') topUp += BigInt(t.amount);
      if (t.step === 'delegate_energy') delegated += BigInt(t.amount);
      if (t.step === 'transfer') amount = t.amount;
    }
    await updateOpenSweep(trx, sweepId, {
      fee: fee.toString(),
      top_up: topUp.toString(),
      delegated: delegated.toString(),
      amount,
      updated_at: at,
    });
  });
}

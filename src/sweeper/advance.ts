/**
 * A sweep moved one step on per tick: its unresolved transaction resolved, else the next one
 * planned, signed and sent (steps.ts), else the sweep finished once its transfer is at the solid
 * block. A step that fails waits before the next try, twice as long each time up to a bound.
 */
import type { AssetCatalog } from '../assets/catalog.js';
import { isTransientTronError } from '../chain/errors.js';
import { LeaseLostError } from '../runtime/lease.js';
import { KeyMismatchError } from '../wallet/signer.js';
import { nextStep } from './plan.js';
import { refreshTotals, resolve, signAndSend, SweepConflictError, type StepContext } from './steps.js';
import { findSweep, setMarkBalance, txsOf, updateSweep, updateTx, type SweepRow, type SweepTxRow } from './store.js';

export interface AdvanceContext extends StepContext {
  catalog: AssetCatalog;
  /** Longest wait before a failed sweep is tried again. */
  maxRetryMs: number;
  /** Most transactions one sweep may sign before it waits for the operator's eyes. */
  maxTxs: number;
}

/**
 * Moves one sweep one step on. What concerns this sweep alone ends here (a refusal, a wait for the
 * node, a failure retried later); a lost lease goes on up to the tick, which stops.
 */
export async function advanceSweep(c: AdvanceContext, sweep: SweepRow): Promise<void> {
  try {
    await advance(c, sweep);
  } catch (e) {
    if (e instanceof SweepConflictError) return;
    if (e instanceof LeaseLostError) {
      // Another process holds the lease now: it carries the sweep on; nothing was stored or sent.
      c.logger.warn({ sweep: sweep.id }, 'worker lease lost before recording a sweep step; dropped unsent');
      throw e;
    }
    if (e instanceof KeyMismatchError) {
      await updateSweep(c.db, sweep.id, {
        status: 'refused',
        last_error: 'the key derived for the stored index does not give this address',
        finished_at: c.clock.now().toISOString(),
        updated_at: c.clock.now().toISOString(),
      });
      c.logger.error(
        {
          alert: 'sweep_key_mismatch',
          sweep: sweep.id,
          address: sweep.address,
          derivation_index: sweep.derivation_index,
        },
        'ALERT: refusing to sign: the derived key does not match the stored address',
      );
      return;
    }
    if (isTransientTronError(e)) {
      c.logger.warn({ err: e, sweep: sweep.id }, 'sweep waits for the node');
      return;
    }
    await fail(c, sweep, e instanceof Error ? e.message : String(e));
  }
}

async function fail(c: AdvanceContext, sweep: SweepRow, reason: string): Promise<void> {
  const failures = sweep.failures + 1;
  const waitMs = Math.min(c.maxRetryMs, 30_000 * 2 ** Math.min(failures - 1, 16));
  const at = c.clock.now();
  await updateSweep(c.db, sweep.id, {
    failures,
    last_error: reason.slice(0, 500),
    retry_at: new Date(at.getTime() + waitMs).toISOString(),
    updated_at: at.toISOString(),
  });
  c.logger.error(
    {
      alert: 'sweep_step_failed',
      sweep: sweep.id,
      address: sweep.address,
      asset: sweep.asset,
      failures,
      retry_in_ms: waitMs,
      reason,
    },
    'ALERT: sweep step failed; it will be retried',
  );
}

/**
 * A sweep is done only once its transfer is irreversible. A transfer whose block was forked
 * away goes back to `broadcast`: resolve() then sends the same bytes again or, once they expired
 * unincluded, lets the sweep sign anew.
 */
async function transferIsSolid(c: AdvanceContext, txs: readonly SweepTxRow[]): Promise<boolean> {
  const transfer = txs.find((t) => t.step === 'transfer' && t.status === 'confirmed');
  if (!transfer) return true;
  if (await c.chain.getTransactionInfo(transfer.txid, { solid: true })) return true;
  if (!(await c.chain.getTransactionInfo(transfer.txid))) {
    await updateTx(c.db, transfer.id, ['confirmed'], { status: 'broadcast', updated_at: c.clock.now().toISOString() });
    c.logger.warn(
      { sweep: transfer.sweep_id, txid: transfer.txid },
      'sweep transfer left the chain (fork); resolving it again',
    );
  }
  return false;
}

/** One step: resolve the unresolved transaction, or sign the next one, or finish. */
async function advance(c: AdvanceContext, sweep: SweepRow): Promise<void> {
  const asset = c.catalog.get(sweep.asset);
  if (!asset) return fail(c, sweep, `asset ${sweep.asset} is not in the catalog`);
  const txs = await txsOf(c.db, sweep.id);
  const open = txs.find((t) => t.status === 'signed' || t.status === 'broadcast');
  if (open) {
    const r = await resolve(c, open);
    if (r === 'pending') return;
    await refreshTotals(c.db, sweep.id, c.clock.now().toISOString());
    if (r === 'failed') {
      const info = (await txsOf(c.db, sweep.id)).find((t) => t.id === open.id);
      return fail(c, sweep, `${open.step} ${open.txid} failed on chain: ${info?.receipt_result ?? 'FAILED'}`);
    }
    if (r === 'confirmed')
      c.logger.info({ sweep: sweep.id, step: open.step, txid: open.txid }, 'sweep transaction confirmed');
    return;
  }
  // Expired transactions never landed; the bound is on what reached the chain.
  const landed = txs.filter((t) => t.status !== 'expired').length;
  if (landed >= c.maxTxs) return fail(c, sweep, `sweep has ${landed} transactions on chain without finishing`);
  const plan = await nextStep({ chain: c.chain, asset, address: sweep.address, hot: c.hot, txs });
  if (plan.kind === 'blocked') return fail(c, sweep, plan.reason);
  if (plan.kind === 'tx') {
    await signAndSend(c, sweep, asset, plan, txs.length + 1);
    return;
  }
  if (plan.status === 'done' && !(await transferIsSolid(c, txs))) return;
  const at = c.clock.now().toISOString();
  await refreshTotals(c.db, sweep.id, at);
  if (await updateSweep(c.db, sweep.id, { status: plan.status, retry_at: null, finished_at: at, updated_at: at })) {
    await setMarkBalance(c.db, sweep.address, sweep.asset, '0', at);
    const done = await findSweep(c.db, sweep.id);
    c.logger.info(
      {
        sweep: sweep.id,
        address: sweep.address,
        asset: sweep.asset,
        status: plan.status,
        amount: done?.amount,
        fee_sun: done?.fee,
        top_up_sun: done?.top_up,
        delegated_sun: done?.delegated,
      },
      'sweep finished',
    );
  }
}

/**
 * Step 2, sign and store: queued → signing. Halts, holds, the hot wallet's limits and balances are
 * checked; the transaction is built and signed, then stored (bytes, txid, expiration) with the
 * status, under the worker lease's fencing check, BEFORE any broadcast (broadcast.ts sends what is
 * stored). Nothing temporary fails a payout: a node error ends the pass with the payout queued; a
 * payout the node refuses to prepare waits with its reason and holds back no other.
 */
import type { CatalogAsset } from '../../assets/catalog.js';
import type { TronTransactionJson } from '../../chain/client.js';
import { isTransientTronError } from '../../chain/errors.js';
import { writeTx } from '../../db/database.js';
import { LeaseLostError } from '../../runtime/lease.js';
import { isWorkerHalted } from '../halts.js';
import { findPayoutForOperator, type PayoutRow } from '../store.js';
import { transitionPayout } from '../transitions.js';
import { ids, WORKER_ACTOR, type PayoutWorkerContext } from './context.js';
import { hotWalletLimits, limitReason } from './limits.js';
import { HotWalletBudget } from './resources.js';
import { testHooks } from './test-hooks.js';

async function build(
  c: PayoutWorkerContext,
  row: PayoutRow,
  asset: CatalogAsset,
  feeLimit: bigint | null,
): Promise<TronTransactionJson> {
  const base = {
    from: c.signer.hotAddress,
    to: row.to_address,
    amount: BigInt(row.amount),
    expirationMs: c.expirationMs,
  };
  const tx =
    asset.type === 'native'
      ? await c.chain.buildTrxTransfer(base)
      : await c.chain.buildTrc20Transfer({ ...base, contract: asset.contract as string, feeLimit: feeLimit ?? 0n });
  return c.signer.withHotKey((key) => c.chain.sign(tx, key));
}

/** Stores the signed transaction with the status change, under the lease's fencing check. */
const storeSigned = (c: PayoutWorkerContext, row: PayoutRow, signed: TronTransactionJson, feeLimit: bigint | null) =>
  writeTx(c.db, async (trx) => {
    await c.lease.assertHeld(trx);
    const cur = await findPayoutForOperator(trx, row.id);
    // Cancelled (or otherwise moved) while we signed: the signed bytes are dropped unsent.
    if (!cur || cur.status !== 'queued') return false;
    await transitionPayout(trx, c.clock, cur, {
      to: 'signing',
      actor: WORKER_ACTOR,
      patch: {
        signed_tx: JSON.stringify(signed),
        tx_hash: signed.txID,
        tx_expiration: signed.raw_data.expiration ?? null,
        sign_attempts: cur.sign_attempts + 1,
        first_signed_at: cur.first_signed_at ?? c.clock.now().toISOString(),
        fee_limit: feeLimit === null ? null : feeLimit.toString(),
        wait_reason: null,
      },
    });
    return true;
  });

export async function signQueued(c: PayoutWorkerContext, signal: AbortSignal): Promise<boolean> {
  const rows = await c.page('queued');
  let budget: HotWalletBudget | null = null;
  let signedAny = false;
  for (const row of rows) {
    if (signal.aborted) break;
    const asset = c.catalog.get(row.asset);
    if (!asset) {
      await c.wait(row, `asset ${row.asset} is not in the catalog of this network`);
      continue;
    }
    if (await isWorkerHalted(c.db, row.asset)) {
      await c.wait(row, 'payout worker halted (paygate payout resume --worker)');
      continue;
    }
    if (row.hold_reason) {
      await c.wait(row, row.hold_reason);
      continue;
    }
    const limits = await hotWalletLimits(c.db, row.asset);
    const over = await limitReason(c.db, row, limits, c.clock.now());
    if (over) {
      await c.wait(row, over);
      continue;
    }
    try {
      budget ??= await HotWalletBudget.read(c.chain, c.db, c.signer.hotAddress, (code) => c.catalog.get(code));
      const r = await budget.reserve(row, asset, limits.feeLimitCap);
      if (!r.ok) {
        await c.wait(row, r.wait);
        continue;
      }
      // Known lost (a pause overran the grant): nothing is signed; the new holder signs it.
      if (!c.lease.held()) throw new LeaseLostError(c.lease.holder);
      const signed = await build(c, row, asset, r.feeLimit);
      testHooks.signed(row.id, signed.txID);
      if (await storeSigned(c, row, signed, r.feeLimit)) {
        signedAny = true;
        c.log.info({ ...ids(row), txid: signed.txID }, 'payout signed');
        testHooks.stored();
      }
    } catch (err) {
      if (err instanceof LeaseLostError) {
        // Paused past the grant: the new holder signs it. Nothing was stored or sent, and this
        // process writes nothing more to the payout (not even a wait reason).
        c.log.warn({ payout: row.id }, 'worker lease lost before recording a signed payout; dropped unsent');
        break;
      }
      if (isTransientTronError(err)) {
        // The node is down or overloaded: the rest of the page would meet the same. Asked again
        // next tick; the payout stays queued.
        c.log.warn({ err, payout: row.id }, 'payout not signed: node error');
        await c.wait(row, `node error while preparing the transaction: ${(err as Error).message}`);
        break;
      }
      // This payout's own problem (an energy estimate that reverts: a recipient the token
      // contract refuses; an address the node will not build for): recorded on it, and the
      // payouts behind it go on. It is tried again each tick and stays queued until it can be
      // signed or the operator cancels it.
      c.log.warn({ err, payout: row.id }, 'payout not signed: the node refuses to prepare its transaction');
      await c.wait(row, `cannot prepare the transaction: ${(err as Error).message}`);
    }
  }
  return signedAny;
}

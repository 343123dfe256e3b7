/**
 * The payout worker (docs/payouts.md, docs/adr/0021-exactly-once-by-stored-signed-bytes.md): takes payouts from `approved` to `confirmed` or
 * `failed` on chain, exactly once. A payout held since a restore (`hold_reason`, payouts/restore.ts)
 * is never signed until the operator approves or cancels it. One tick runs four steps, each over a
 * bounded batch:
 *
 *   1. approved → queued      whitelist entry still there (else rejected), merchant enabled (else
 *                             waits): queue.ts
 *   2. queued → signing       halts, hot wallet limits and balances checked; the transaction is built
 *                             and signed, then stored (bytes, txid, expiration) with the status, under
 *                             the worker lease's fencing check, BEFORE any broadcast
 *   3. signing → broadcast    the stored bytes are broadcast after commit, each time after a fresh
 *                             check of the lease (lease.confirm); a duplicate answer is fine
 *   4. broadcast → confirmed | failed   from the receipt in a solid block
 *
 * After a crash every step starts from what the database says: a `signing` payout is broadcast again
 * with the same bytes. A transaction is given up (back to `queued`, signed anew) only when it
 * provably can never land: the solid block is past its expiration, the node knows no such txid at
 * the solid height, and the blocks from its reference block to past its expiration, read as one
 * linked run, do not hold it (chain/absence.ts). Nothing temporary (node errors, refusals, a short
 * wallet) ever fails a payout; only a receipt that is not SUCCESS does, and a failed payout is
 * never sent again. A payout the node refuses to prepare (its energy estimate reverts) waits with
 * its reason and holds back no other; only a node that is down ends a step's pass.
 *
 * Under the worker host every write here is fenced by the lease (runtime/host.ts); a tick that
 * finds the lease gone stops where it is: nothing more is written, signed or sent.
 */
import type { CatalogAsset } from '../../assets/catalog.js';
import { recordAudit } from '../../audit/store.js';
import type { BroadcastResult, ChainBlockHeader, TronTransactionJson } from '../../chain/client.js';
import { ProofThrottle } from '../../chain/absence.js';
import { isTransientTronError } from '../../chain/errors.js';
import { transactionOutcome, type TxOutcome } from '../../chain/outcome.js';
import type { PayoutStatus } from '../../db/schema.js';
import { writeTx } from '../../db/database.js';
import type { WorkerServices } from '../../services.js';
import type { Worker } from '../../runtime/worker.js';
import { LeaseLostError, type WorkerLease } from '../../runtime/lease.js';
import { finalityStop } from '../../watcher/stop.js';
import { isWorkerHalted } from '../halts.js';
import { findPayoutForOperator, type PayoutRow } from '../store.js';
import { transitionPayout, type TransitionInput } from '../transitions.js';
import { hotWalletLimits, limitReason } from './limits.js';
import { queueApprovedPayout } from './queue.js';
import { HotWalletBudget } from './resources.js';
import { payoutsIn, setWaitReason, type PageCursor } from './store.js';
import { testHooks } from './test-hooks.js';

export const WORKER_ACTOR = 'worker:payouts';
export const PAYOUT_WORKER = 'payouts';

export interface PayoutWorkerOptions {
  /** Pause between ticks that found nothing to do (default 1 s). */
  intervalMs?: number;
  /** Payouts per step and tick (default 25). */
  batch?: number;
  /** Transaction validity after its reference block (default 60 s, as tronweb). */
  expirationMs?: number;
}

/** The payout worker of `serve`; none without an unlocked wallet (nothing could be signed). */
export function payoutWorkers(s: WorkerServices, lease: WorkerLease): Worker[] {
  return s.signer ? [createPayoutWorker(s, lease)] : [];
}

type Fate =
  | { kind: 'landed'; outcome: Extract<TxOutcome, { state: 'success' | 'failed' }> }
  | { kind: 'pending' }
  | { kind: 'dead' };

export function createPayoutWorker(s: WorkerServices, lease: WorkerLease, opts: PayoutWorkerOptions = {}): Worker {
  const { db, chain, clock } = s;
  if (!s.signer) throw new Error('the payout worker needs the unlocked wallet');
  const signer = s.signer;
  const hot = signer.hotAddress;
  const batch = opts.batch ?? 25;
  const expirationMs = opts.expirationMs ?? 60_000;
  const log = s.logger.child({ component: 'payout-worker' });
  /** Solid height at which each broadcast payout was last looked up (no new look-up before it moves). */
  const checkedAt = new Map<string, number>();
  /** Look-ups of each broadcast payout not yet solid; every REPOOL_EVERY-th also asks the head. */
  const polls = new Map<string, number>();
  const REPOOL_EVERY = 10;
  /** Each payout's failed proofs of absence, so that they are not read again every tick. */
  const proofs = new ProofThrottle();

  /** Where each step's next page starts; back to the oldest once a page comes back short. */
  const cursors = new Map<PayoutStatus, PageCursor | null>();
  const page = async (status: PayoutStatus, size = batch): Promise<PayoutRow[]> => {
    const rows = await payoutsIn(db, status, size, cursors.get(status) ?? null);
    const last = rows[rows.length - 1];
    cursors.set(status, rows.length < size || !last ? null : { created_at: last.created_at, id: last.id });
    return rows;
  };

  /** What every line of a payout's way out names (never a secret): the operator's search keys. */
  const ids = (row: PayoutRow) => ({
    payout: row.id,
    merchant: row.merchant_id,
    asset: row.asset,
    amount: row.amount,
    to: row.to_address,
  });

  const move = (row: PayoutRow, t: Omit<TransitionInput, 'actor'>) =>
    writeTx(db, async (trx) => {
      const cur = await findPayoutForOperator(trx, row.id);
      if (!cur || cur.status !== row.status || cur.tx_hash !== row.tx_hash) return false;
      await transitionPayout(trx, clock, cur, { ...t, actor: WORKER_ACTOR });
      if (t.to === 'queued' && row.tx_hash) {
        await recordAudit(trx, clock, {
          actor: WORKER_ACTOR,
          action: 'payout.resign',
          subjectType: 'payout',
          subjectId: row.id,
          merchantId: row.merchant_id,
          details: { expired_txid: row.tx_hash, expiration: row.tx_expiration },
        });
      }
      return true;
    });

  const wait = async (row: PayoutRow, reason: string | null) => {
    if (row.wait_reason === reason) return;
    if (await writeTx(db, (trx) => setWaitReason(trx, row, reason))) {
      if (reason) log.warn({ payout: row.id, asset: row.asset, reason }, 'payout waits');
      row.wait_reason = reason;
    }
  };

  /** Step 1. */
  async function queueApproved(signal: AbortSignal): Promise<boolean> {
    let moved = false;
    for (const row of await page('approved')) {
      if (signal.aborted) break;
      // Held since a restore: it may have been sent after the backup; only the operator decides.
      if (row.hold_reason) {
        await wait(row, row.hold_reason);
        continue;
      }
      const done = await writeTx(db, (trx) => queueApprovedPayout(trx, clock, row, WORKER_ACTOR));
      moved ||= done;
    }
    return moved;
  }

  async function build(row: PayoutRow, asset: CatalogAsset, feeLimit: bigint | null): Promise<TronTransactionJson> {
    const base = { from: hot, to: row.to_address, amount: BigInt(row.amount), expirationMs };
    const tx =
      asset.type === 'native'
        ? await chain.buildTrxTransfer(base)
        : await chain.buildTrc20Transfer({ ...base, contract: asset.contract as string, feeLimit: feeLimit ?? 0n });
    return signer.withHotKey((key) => chain.sign(tx, key));
  }

  /** Stores the signed transaction with the status change, under the lease's fencing check. */
  const storeSigned = (row: PayoutRow, signed: TronTransactionJson, feeLimit: bigint | null) =>
    writeTx(db, async (trx) => {
      await lease.assertHeld(trx);
      const cur = await findPayoutForOperator(trx, row.id);
      // Cancelled (or otherwise moved) while we signed: the signed bytes are dropped unsent.
      if (!cur || cur.status !== 'queued') return false;
      await transitionPayout(trx, clock, cur, {
        to: 'signing',
        actor: WORKER_ACTOR,
        patch: {
          signed_tx: JSON.stringify(signed),
          tx_hash: signed.txID,
          tx_expiration: signed.raw_data.expiration ?? null,
          sign_attempts: cur.sign_attempts + 1,
          first_signed_at: cur.first_signed_at ?? clock.now().toISOString(),
          fee_limit: feeLimit === null ? null : feeLimit.toString(),
          wait_reason: null,
        },
      });
      return true;
    });

  /** Step 2. */
  async function signQueued(signal: AbortSignal): Promise<boolean> {
    const rows = await page('queued');
    let budget: HotWalletBudget | null = null;
    let signedAny = false;
    for (const row of rows) {
      if (signal.aborted) break;
      const asset = s.catalog.get(row.asset);
      if (!asset) {
        await wait(row, `asset ${row.asset} is not in the catalog of this network`);
        continue;
      }
      if (await isWorkerHalted(db, row.asset)) {
        await wait(row, 'payout worker halted (paygate payout resume --worker)');
        continue;
      }
      if (row.hold_reason) {
        await wait(row, row.hold_reason);
        continue;
      }
      const limits = await hotWalletLimits(db, row.asset);
      const over = await limitReason(db, row, limits, clock.now());
      if (over) {
        await wait(row, over);
        continue;
      }
      try {
        budget ??= await HotWalletBudget.read(chain, db, hot, (c) => s.catalog.get(c));
        const r = await budget.reserve(row, asset, limits.feeLimitCap);
        if (!r.ok) {
          await wait(row, r.wait);
          continue;
        }
        // Known lost (a pause overran the grant): nothing is signed; the new holder signs it.
        if (!lease.held()) throw new LeaseLostError(lease.holder);
        const signed = await build(row, asset, r.feeLimit);
        testHooks.signed(row.id, signed.txID);
        if (await storeSigned(row, signed, r.feeLimit)) {
          signedAny = true;
          log.info({ ...ids(row), txid: signed.txID }, 'payout signed');
          testHooks.stored();
        }
      } catch (err) {
        if (err instanceof LeaseLostError) {
          // Paused past the grant: the new holder signs it. Nothing was stored or sent, and this
          // process writes nothing more to the payout (not even a wait reason).
          log.warn({ payout: row.id }, 'worker lease lost before recording a signed payout; dropped unsent');
          break;
        }
        if (isTransientTronError(err)) {
          // The node is down or overloaded: the rest of the page would meet the same. Asked again
          // next tick; the payout stays queued.
          log.warn({ err, payout: row.id }, 'payout not signed: node error');
          await wait(row, `node error while preparing the transaction: ${(err as Error).message}`);
          break;
        }
        // This payout's own problem (an energy estimate that reverts: a recipient the token
        // contract refuses; an address the node will not build for): recorded on it, and the
        // payouts behind it go on. It is tried again each tick and stays queued until it can be
        // signed or the operator cancels it.
        log.warn({ err, payout: row.id }, 'payout not signed: the node refuses to prepare its transaction');
        await wait(row, `cannot prepare the transaction: ${(err as Error).message}`);
      }
    }
    return signedAny;
  }

  /** Whether a stored transaction landed, may still land, or provably never can. */
  async function fateOf(row: PayoutRow, solid: ChainBlockHeader): Promise<Fate> {
    const txid = row.tx_hash as string;
    const outcome = await transactionOutcome(chain, txid, { solid: true });
    if (outcome.state === 'success' || outcome.state === 'failed') return { kind: 'landed', outcome };
    if (outcome.state === 'undecided') return { kind: 'pending' };
    // A block holding it would have a timestamp ≤ its expiration; solid past that and no trace
    // of the txid at the solid height means no block can ever hold it.
    if (row.tx_expiration === null || solid.timestamp <= row.tx_expiration) return { kind: 'pending' };
    if (await chain.getTransaction(txid, { solid: true })) return { kind: 'pending' };
    // "Not found" proves nothing (a backend behind the node's load balancer that lags, an empty
    // answer): the blocks it could be in must be read and shown not to hold it (chain/absence.ts).
    // That reads ~20 blocks: after a failed proof, only once the solid height has moved on.
    const tx = JSON.parse(row.signed_tx as string) as TronTransactionJson;
    return (await proofs.neverLands(chain, row.id, tx, solid)) ? { kind: 'dead' } : { kind: 'pending' };
  }

  const resign = (row: PayoutRow) => {
    log.warn({ payout: row.id, txid: row.tx_hash }, 'payout transaction expired unsent; it will be signed anew');
    return move(row, {
      to: 'queued',
      patch: { signed_tx: null, tx_hash: null, tx_expiration: null, fee_limit: null, wait_reason: null },
    });
  };

  const sent = async (row: PayoutRow) => {
    const done = await move(row, { to: 'broadcast', patch: { wait_reason: null } });
    if (done) log.info({ ...ids(row), txid: row.tx_hash }, 'payout broadcast');
    return done;
  };

  /** Step 3. */
  async function broadcastSigning(signal: AbortSignal): Promise<boolean> {
    let moved = false;
    let solid: ChainBlockHeader | null = null;
    for (const row of await page('signing')) {
      if (signal.aborted) break;
      if (await isWorkerHalted(db, row.asset)) {
        await wait(row, 'payout worker halted before the broadcast (paygate payout resume --worker)');
        continue;
      }
      let result: BroadcastResult | null = null;
      // Stored under the fence when signed; sent only while the lease is still ours (a paused
      // holder that resumes after a takeover stops here; the bytes are the new holder's to send).
      await lease.confirm();
      try {
        result = await chain.broadcast(JSON.parse(row.signed_tx as string) as TronTransactionJson);
      } catch (err) {
        log.warn({ err, payout: row.id, txid: row.tx_hash }, 'broadcast unanswered; retried with the same bytes');
      }
      if (result?.ok) {
        moved = (await sent(row)) || moved;
        continue;
      }
      if (result && !result.ok) {
        await wait(row, `broadcast refused by the node: ${result.code} ${result.message}`.trim());
        if (result.retryable) continue;
      }
      try {
        solid ??= await chain.getSolidBlock();
        const fate = await fateOf(row, solid);
        if (fate.kind === 'landed') moved = (await sent(row)) || moved;
        else if (fate.kind === 'dead') moved = (await resign(row)) || moved;
      } catch (err) {
        log.warn({ err, payout: row.id }, 'could not look the transaction up');
      }
    }
    return moved;
  }

  async function settle(
    row: PayoutRow,
    outcome: Extract<TxOutcome, { state: 'success' | 'failed' }>,
  ): Promise<boolean> {
    checkedAt.delete(row.id);
    polls.delete(row.id);
    proofs.forget(row.id);
    const fee = outcome.info.fee.toString();
    const line = { ...ids(row), txid: row.tx_hash, network_fee_sun: fee };
    if (outcome.state === 'success') {
      const done = await move(row, {
        to: 'confirmed',
        patch: { network_fee: fee, wait_reason: null, hold_reason: null },
      });
      if (done) log.info(line, 'payout confirmed');
      return done;
    }
    const done = await move(row, {
      to: 'failed',
      patch: { network_fee: fee, fail_reason: outcome.reason, wait_reason: null, hold_reason: null },
    });
    // An error, not info: the operator looks at every failed payout.
    if (done)
      log.error({ ...line, receipt: outcome.reason }, 'payout failed on chain; reservation released, not re-sent');
    return done;
  }

  /** Step 4. */
  async function confirmBroadcast(signal: AbortSignal): Promise<boolean> {
    const rows = await page('broadcast', batch * 4);
    if (rows.length === 0) return false;
    const solid = await chain.getSolidBlock();
    let moved = false;
    for (const row of rows) {
      if (signal.aborted) break;
      if ((checkedAt.get(row.id) ?? -1) >= solid.number) continue;
      let fate: Fate;
      try {
        fate = await fateOf(row, solid);
      } catch (err) {
        log.warn({ err, payout: row.id }, 'could not look the transaction up; next tick');
        break;
      }
      checkedAt.set(row.id, solid.number);
      if (fate.kind === 'landed') moved = (await settle(row, fate.outcome)) || moved;
      else if (fate.kind === 'dead') moved = (await resign(row)) || moved;
      else {
        const n = (polls.get(row.id) ?? 0) + 1;
        polls.set(row.id, n);
        // Now and then: did the node lose it from its pool (restart, fork)? Then the same bytes
        // again, harmless if it knows them.
        if (n % REPOOL_EVERY === 0 && !(await chain.getTransaction(row.tx_hash as string).catch(() => true))) {
          await lease.confirm();
          await chain.broadcast(JSON.parse(row.signed_tx as string) as TronTransactionJson).catch(() => undefined);
        }
      }
    }
    return moved;
  }

  return {
    name: PAYOUT_WORKER,
    intervalMs: opts.intervalMs ?? 1_000,
    async tick(signal) {
      // The node contradicted finality (watcher/stop.ts): none of its answers is acted on,
      // nothing is signed, sent or settled, until the operator resumes the watcher.
      if (await finalityStop(db)) return false;
      try {
        const queued = await queueApproved(signal);
        const signed = await signQueued(signal);
        const sent = await broadcastSigning(signal);
        const settled = await confirmBroadcast(signal);
        return queued || signed || sent || settled;
      } catch (err) {
        if (!(err instanceof LeaseLostError)) throw err;
        log.warn('worker lease lost: the payout worker stops; nothing more is written, signed or sent');
        return false;
      }
    },
  };
}

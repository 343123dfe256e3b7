/**
 * The payout worker (docs/payouts.md, docs/adr/0021-exactly-once-by-stored-signed-bytes.md): takes payouts from `approved` to `confirmed` or
 * `failed` on chain, exactly once. A payout held since a restore (`hold_reason`, restore/payout-holds.ts)
 * is never signed until the operator approves or cancels it. One tick runs four steps, each its own
 * module over the worker's context (context.ts) and a bounded batch:
 *
 *   1. pick                   approved → queued: whitelist entry still there (else rejected),
 *                             merchant enabled (else waits): pick.ts
 *   2. sign and store         queued → signing: halts, hot wallet limits and balances checked; the
 *                             transaction is built and signed, then stored (bytes, txid, expiration)
 *                             with the status, under the worker lease's fencing check, BEFORE any
 *                             broadcast: sign.ts
 *   3. broadcast              signing → broadcast: the stored bytes, after a fresh check of the
 *                             lease (lease.confirm); a duplicate answer is fine: broadcast.ts
 *   4. confirm or re-sign     broadcast → confirmed | failed from the receipt in a solid block, or
 *                             back to queued once the transaction provably never lands: confirm.ts
 *
 * After a crash every step starts from what the database says: a `signing` payout is broadcast again
 * with the same bytes. A transaction is given up (back to `queued`, signed anew) only when it
 * provably can never land: the solid block is past its expiration, the node knows no such txid at
 * the solid height, and the blocks from its reference block to past its expiration, read as one
 * linked run, do not hold it (fate.ts, chain/absence.ts). Nothing temporary (node errors, refusals, a short
 * wallet) ever fails a payout; only a receipt that is not SUCCESS does, and a failed payout is
 * never sent again. A payout the node refuses to prepare (its energy estimate reverts) waits with
 * its reason and holds back no other; only a node that is down ends a step's pass.
 *
 * Under the worker host every write here is fenced by the lease (runtime/host.ts); a tick that
 * finds the lease gone stops where it is: nothing more is written, signed or sent.
 */
import type { Worker } from '../../runtime/worker.js';
import { LeaseLostError, type WorkerLease } from '../../runtime/lease.js';
import type { WorkerServices } from '../../services.js';
import { finalityStop } from '../../watcher/stop.js';
import { broadcastSigned } from './broadcast.js';
import { confirmOrResign } from './confirm.js';
import { payoutWorkerContext, type PayoutWorkerOptions } from './context.js';
import { pickApproved } from './pick.js';
import { signQueued } from './sign.js';

export { WORKER_ACTOR, type PayoutWorkerOptions } from './context.js';
export const PAYOUT_WORKER = 'payouts';

/** The payout worker of `serve`; none without an unlocked wallet (nothing could be signed). */
export function payoutWorkers(s: WorkerServices, lease: WorkerLease): Worker[] {
  return s.signer ? [createPayoutWorker(s, lease)] : [];
}

export function createPayoutWorker(s: WorkerServices, lease: WorkerLease, opts: PayoutWorkerOptions = {}): Worker {
  if (!s.signer) throw new Error('the payout worker needs the unlocked wallet');
  const c = payoutWorkerContext(s, s.signer, lease, opts);
  return {
    name: PAYOUT_WORKER,
    intervalMs: opts.intervalMs ?? 1_000,
    async tick(signal) {
      // The node contradicted finality (watcher/stop.ts): none of its answers is acted on,
      // nothing is signed, sent or settled, until the operator resumes the watcher.
      if (await finalityStop(c.db)) return false;
      try {
        const picked = await pickApproved(c, signal);
        const signed = await signQueued(c, signal);
        const sent = await broadcastSigned(c, signal);
        const settled = await confirmOrResign(c, signal);
        return picked || signed || sent || settled;
      } catch (err) {
        if (!(err instanceof LeaseLostError)) throw err;
        c.log.warn('worker lease lost: the payout worker stops; nothing more is written, signed or sent');
        return false;
      }
    },
  };
}

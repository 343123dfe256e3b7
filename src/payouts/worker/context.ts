/**
 * What every step of the payout worker works over (worker.ts runs the steps): the database, the
 * node, the signer, the lease, and the few helpers that each step needs in the same way: a page of
 * payouts in a status, a compare-and-set status change, a wait reason, the names a log line
 * carries. The state kept between ticks (page cursors, throttles) lives here too, one per worker.
 */
import type { AssetCatalog } from '../../assets/catalog.js';
import { recordAudit } from '../../audit/store.js';
import { ProofThrottle } from '../../chain/absence.js';
import type { TronClient } from '../../chain/client.js';
import type { Clock } from '../../clock.js';
import { writeTx, type Db } from '../../db/database.js';
import type { PayoutStatus } from '../../db/schema.js';
import type { WorkerLease } from '../../runtime/lease.js';
import type { WorkerServices } from '../../services.js';
import type { Signer } from '../../wallet/signer.js';
import type { Logger } from 'pino';
import { findPayoutForOperator, type PayoutRow } from '../store.js';
import { transitionPayout, type TransitionInput } from '../transitions.js';
import { payoutsIn, setWaitReason, type PageCursor } from './store.js';

export const WORKER_ACTOR = 'worker:payouts';

export interface PayoutWorkerOptions {
  /** Pause between ticks that found nothing to do (default 1 s). */
  intervalMs?: number;
  /** Payouts per step and tick (default 25). */
  batch?: number;
  /** Transaction validity after its reference block (default 60 s, as tronweb). */
  expirationMs?: number;
}

export interface PayoutWorkerContext {
  db: Db;
  chain: TronClient;
  clock: Clock;
  catalog: AssetCatalog;
  /** The only way to the hot wallet key (src/wallet/signer.ts). */
  signer: Signer;
  lease: WorkerLease;
  log: Logger;
  /** Payouts per step and tick. */
  batch: number;
  /** Transaction validity after its reference block. */
  expirationMs: number;
  /** Each payout's failed proofs of absence, so that they are not read again every tick. */
  proofs: ProofThrottle;
  /** Solid height at which each broadcast payout was last looked up (no new look-up before it moves). */
  checkedAt: Map<string, number>;
  /** Look-ups of each broadcast payout not yet solid (confirm.ts asks the node's pool now and then). */
  polls: Map<string, number>;
  /** The next page of payouts in `status`; back to the oldest once a page comes back short. */
  page(status: PayoutStatus, size?: number): Promise<PayoutRow[]>;
  /** Moves the payout on if it is still as read (status and txid); false when it was not. */
  move(row: PayoutRow, t: Omit<TransitionInput, 'actor'>): Promise<boolean>;
  /** Records why the payout waits (null: it no longer waits); logged once per new reason. */
  wait(row: PayoutRow, reason: string | null): Promise<void>;
}

/** What every line of a payout's way out names (never a secret): the operator's search keys. */
export const ids = (row: PayoutRow) => ({
  payout: row.id,
  merchant: row.merchant_id,
  asset: row.asset,
  amount: row.amount,
  to: row.to_address,
});

export function payoutWorkerContext(
  s: WorkerServices,
  signer: Signer,
  lease: WorkerLease,
  opts: PayoutWorkerOptions,
): PayoutWorkerContext {
  const { db, clock } = s;
  const batch = opts.batch ?? 25;
  const log = s.logger.child({ component: 'payout-worker' });
  const cursors = new Map<PayoutStatus, PageCursor | null>();
  return {
    db,
    chain: s.chain,
    clock,
    catalog: s.catalog,
    signer,
    lease,
    log,
    batch,
    expirationMs: opts.expirationMs ?? 60_000,
    proofs: new ProofThrottle(),
    checkedAt: new Map(),
    polls: new Map(),

    async page(status, size = batch) {
      const rows = await payoutsIn(db, status, size, cursors.get(status) ?? null);
      const last = rows[rows.length - 1];
      cursors.set(status, rows.length < size || !last ? null : { created_at: last.created_at, id: last.id });
      return rows;
    },

    move: (row, t) =>
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
      }),

    async wait(row, reason) {
      if (row.wait_reason === reason) return;
      if (await writeTx(db, (trx) => setWaitReason(trx, row, reason))) {
        if (reason) log.warn({ payout: row.id, asset: row.asset, reason }, 'payout waits');
        row.wait_reason = reason;
      }
    },
  };
}

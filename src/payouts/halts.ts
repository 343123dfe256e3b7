/**
 * Payout halts, the operator's emergency brakes (`payout halt|resume [--asset A] [--worker]`).
 * Two independent brakes per scope ('*' = every asset, or one asset):
 * - requests: new `POST /v1/payouts` answer 503 payouts_halted (reason not disclosed); replays of
 *   existing references still return their payout, and nothing is created;
 * - worker: the payout worker executes no queued payout of the scope, and with every asset ('*')
 *   the sweeper signs nothing either. `halt --worker` sets both brakes (the stronger brake must
 *   not leave the API open); `resume --worker` lifts both, a plain `resume` only the request
 *   brake. `paygate restore` sets the worker brake alone for every asset: during its hold requests
 *   are accepted (202) and wait.
 * A halt of every asset and a halt of one asset are separate rows: resuming one does not lift the other.
 */
import type { AssetCatalog } from '../assets/catalog.js';
import { requireCatalogAsset } from '../assets/service.js';
import { recordAudit } from '../audit/store.js';
import type { Clock } from '../clock.js';
import { writeTx, type Db, type Executor, type Tx } from '../db/database.js';
import { AppError } from '../errors.js';

export const ALL_ASSETS = '*';
export type HaltBrake = 'requests' | 'worker';

export interface HaltView {
  /** An asset code, or "*" for every asset. */
  scope: string;
  requests_halted: boolean;
  worker_halted: boolean;
  updated_at: string;
  updated_by: string;
}

async function haltRows(db: Executor) {
  return db.selectFrom('payout_halts').selectAll().orderBy('scope').execute();
}

/** Every scope ever halted, its brakes on or off (the halt gauge reports the lifted ones as 0). */
export async function haltStates(db: Executor): Promise<HaltView[]> {
  return (await haltRows(db)).map((r) => ({
    scope: r.scope,
    requests_halted: r.requests === 1,
    worker_halted: r.worker === 1,
    updated_at: r.updated_at,
    updated_by: r.updated_by,
  }));
}

/** The halts in force. */
export async function listHalts(db: Executor): Promise<HaltView[]> {
  return (await haltStates(db)).filter((h) => h.requests_halted || h.worker_halted);
}

async function halted(db: Executor, asset: string, brake: HaltBrake): Promise<boolean> {
  const row = await db
    .selectFrom('payout_halts')
    .select('scope')
    .where('scope', 'in', [ALL_ASSETS, asset])
    .where(brake, '=', 1)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Spec rule 6: the message never says why or which scope. */
export async function assertRequestsNotHalted(db: Executor, asset: string): Promise<void> {
  if (await halted(db, asset, 'requests'))
    throw new AppError('payouts_halted', 'Payouts are halted; retry later with the same reference');
}

/** For the payout worker: whether it may execute queued payouts of `asset` now. */
export async function isWorkerHalted(db: Executor, asset: string): Promise<boolean> {
  return halted(db, asset, 'worker');
}

export interface SetHaltInput {
  asset?: string;
  worker: boolean;
  halted: boolean;
  reason?: string;
}

export async function setHalt(
  db: Db,
  clock: Clock,
  actor: string,
  catalog: AssetCatalog,
  input: SetHaltInput,
): Promise<HaltView[]> {
  const scope = input.asset === undefined ? ALL_ASSETS : requireCatalogAsset(catalog, input.asset).code;
  const reason = input.reason?.trim();
  if (reason !== undefined && reason.length > 500)
    throw new AppError('invalid_argument', '--reason must be at most 500 characters');
  return writeTx(db, async (trx) => {
    await applyHalt(trx, clock, actor, {
      scope,
      worker: input.worker,
      halted: input.halted,
      ...(reason ? { reason } : {}),
    });
    return listHalts(trx);
  });
}

/** setHalt inside the caller's transaction, for a scope already checked (`paygate restore` halts every asset). */
export async function applyHalt(
  trx: Tx,
  clock: Clock,
  actor: string,
  input: { scope: string; worker: boolean; halted: boolean; reason?: string; brakes?: HaltBrake[] },
): Promise<void> {
  // `halt` stops new requests; `halt --worker` stops the worker as well (the stronger brake must
  // never leave the API open). `resume` lifts the request brake only, `resume --worker` both.
  // A restore's hold names the worker brake alone: requests are accepted and wait.
  const brakes: HaltBrake[] = input.brakes ?? (input.worker ? ['requests', 'worker'] : ['requests']);
  const now = clock.now().toISOString();
  const before = await trx.selectFrom('payout_halts').selectAll().where('scope', '=', input.scope).executeTakeFirst();
  const row = {
    scope: input.scope,
    requests: before?.requests ?? 0,
    worker: before?.worker ?? 0,
    updated_at: now,
    updated_by: actor,
    ...Object.fromEntries(brakes.map((b) => [b, input.halted ? 1 : 0])),
  };
  await trx
    .insertInto('payout_halts')
    .values(row)
    .onConflict((oc) =>
      oc
        .column('scope')
        .doUpdateSet({ requests: row.requests, worker: row.worker, updated_at: now, updated_by: actor }),
    )
    .execute();
  await recordAudit(trx, clock, {
    actor,
    action: input.halted ? 'payout.halt' : 'payout.resume',
    subjectType: 'payout_halt',
    subjectId: input.scope,
    details: { brakes, ...(input.reason ? { reason: input.reason } : {}) },
  });
}

/**
 * SQL for dated fee rows. One rule for every kind: the row in force at a moment is the one with the
 * latest valid_from not after it (ties: the later insert). Payout fees (issue 4) use the same rows
 * with kind 'payout'.
 */
import type { Executor } from '../db/database.js';
import { prepare } from '../db/prepared.js';
import type { FeeKind, FeeSchedulesTable } from '../db/schema.js';
import type { Insertable, Selectable } from 'kysely';

export type FeeRow = Selectable<FeeSchedulesTable>;

export interface FeeScope {
  kind: FeeKind;
  merchantId?: string | null;
  asset?: string | null;
}

export async function insertFee(db: Executor, row: Insertable<FeeSchedulesTable>): Promise<FeeRow> {
  return db.insertInto('fee_schedules').values(row).returningAll().executeTakeFirstOrThrow();
}

function scoped(db: Executor, s: FeeScope) {
  let q = db.selectFrom('fee_schedules').selectAll().where('kind', '=', s.kind);
  q = s.merchantId ? q.where('merchant_id', '=', s.merchantId) : q.where('merchant_id', 'is', null);
  q = s.asset ? q.where('asset', '=', s.asset) : q.where('asset', 'is', null);
  return q;
}

// Every invoice creation reads two (its merchant's service fee, its asset's fixed amount): one
// statement per scope shape, built once (db/prepared.ts).
const inForce = (merchant: boolean, asset: boolean) =>
  prepare(['kind', 'merchant', 'asset', 'at'], (db, p) => {
    let q = db.selectFrom('fee_schedules').selectAll().where('kind', '=', p('kind'));
    q = merchant ? q.where('merchant_id', '=', p('merchant')) : q.where('merchant_id', 'is', null);
    q = asset ? q.where('asset', '=', p('asset')) : q.where('asset', 'is', null);
    return q.where('valid_from', '<=', p('at')).orderBy('valid_from', 'desc').orderBy('id', 'desc').limit(1);
  });
const IN_FORCE = [inForce(false, false), inForce(false, true), inForce(true, false), inForce(true, true)] as const;

/** The row in force at `at` (ISO text), or undefined when none has started yet. */
export async function feeInForce(db: Executor, s: FeeScope, at: string): Promise<FeeRow | undefined> {
  const q = IN_FORCE[(s.merchantId ? 2 : 0) + (s.asset ? 1 : 0)]!;
  return q.first(db, { kind: s.kind, merchant: s.merchantId, asset: s.asset, at });
}

/** The rows starting after `at`, soonest first. */
export async function feesScheduled(db: Executor, s: FeeScope, at: string): Promise<FeeRow[]> {
  return scoped(db, s).where('valid_from', '>', at).orderBy('valid_from').orderBy('id').execute();
}

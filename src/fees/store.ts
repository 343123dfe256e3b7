/**
 * SQL for dated fee rows. One rule for every kind: the row in force at a moment is the one with the
 * latest valid_from not after it (ties: the later insert). Payout fees use the same rows
 * with kind 'payout'.
 */
import type { Executor, Tx } from '../db/database.js';
import type { FeeKind, FeeSchedulesTable } from '../db/schema.js';
import type { Insertable, Selectable } from 'kysely';

export type FeeRow = Selectable<FeeSchedulesTable>;

export interface FeeScope {
  kind: FeeKind;
  merchantId?: string | null;
  asset?: string | null;
}

export async function insertFee(db: Tx, row: Insertable<FeeSchedulesTable>): Promise<FeeRow> {
  return db.insertInto('fee_schedules').values(row).returningAll().executeTakeFirstOrThrow();
}

function scoped(db: Executor, s: { kind: FeeKind; merchantId?: string | null; asset?: string | null }) {
  let q = db.selectFrom('fee_schedules').selectAll().where('kind', '=', s.kind);
  q = s.merchantId ? q.where('merchant_id', '=', s.merchantId) : q.where('merchant_id', 'is', null);
  q = s.asset ? q.where('asset', '=', s.asset) : q.where('asset', 'is', null);
  return q;
}

/** The row in force at `at` (ISO text), or undefined when none has started yet. */
export async function feeInForce(db: Executor, s: FeeScope, at: string): Promise<FeeRow | undefined> {
  return inForce(db, s, at).executeTakeFirst();
}

function inForce(db: Executor, s: FeeScope, at: string) {
  return scoped(db, s).where('valid_from', '<=', at).orderBy('valid_from', 'desc').orderBy('id', 'desc').limit(1);
}

/** The row in force at `at` of each scope that has one, read in one statement. */
export async function feesInForce(db: Executor, scopes: FeeScope[], at: string): Promise<FeeRow[]> {
  return db
    .selectFrom('fee_schedules')
    .selectAll()
    .where(
      'id',
      'in',
      scopes.map((s) => inForce(db, s, at).clearSelect().select('id')),
    )
    .execute();
}

/** The rows starting after `at`, soonest first. */
export async function feesScheduled(db: Executor, s: FeeScope, at: string): Promise<FeeRow[]> {
  return scoped(db, s).where('valid_from', '>', at).orderBy('valid_from').orderBy('id').execute();
}

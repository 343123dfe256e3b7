/** SQL for operator tokens. */
import type { Executor, Tx } from '../db/database.js';
import type { OperatorTokensTable } from '../db/tables/operator-tokens.js';

export type OperatorTokenRow = OperatorTokensTable;

export async function insertToken(db: Tx, row: OperatorTokenRow): Promise<void> {
  await db.insertInto('operator_tokens').values(row).execute();
}

export async function findToken(db: Executor, tokenId: string): Promise<OperatorTokenRow | undefined> {
  return db.selectFrom('operator_tokens').selectAll().where('token_id', '=', tokenId).executeTakeFirst();
}

export async function listTokens(db: Executor): Promise<OperatorTokenRow[]> {
  return db.selectFrom('operator_tokens').selectAll().orderBy('created_at').orderBy('token_id').execute();
}

export async function markRevoked(db: Tx, tokenId: string, at: string, by: string): Promise<void> {
  await db
    .updateTable('operator_tokens')
    .set({ revoked_at: at, revoked_by: by })
    .where('token_id', '=', tokenId)
    .where('revoked_at', 'is', null)
    .execute();
}

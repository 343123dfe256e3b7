/**
 * Which engine an executor runs on. Store code stays engine-neutral; the few SQL fragments whose
 * spelling differs between SQLite and PostgreSQL (portable.ts) and the transaction rules
 * (database.ts) ask here, from the executor they were handed (the database or an open transaction).
 */
import { PostgresAdapter, type QueryExecutor } from 'kysely';

export type Engine = 'sqlite' | 'postgres';

/** `db`: a kysely instance or transaction of any schema. */
export function engineOf(db: { getExecutor(): QueryExecutor }): Engine {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

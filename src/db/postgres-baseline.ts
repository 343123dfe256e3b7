/**
 * The PostgreSQL schema equal to SQLite's after migration 0047 (POSTGRES_BASELINE): a new
 * PostgreSQL database gets it in one step instead of replaying SQLite's history (table rebuilds,
 * SQLite's trigger syntax). Same tables, columns, primary and unique keys, foreign keys, CHECKs and
 * indexes, under the same names; test/db/schema-parity.test.ts compares the two catalogs so they
 * cannot drift (docs/database.md, "Two engines").
 *
 * Types: SQLite's INTEGER is `bigint` (read back as a number, postgres.ts), TEXT stays `text`
 * (money as base units, times as ISO strings, as on SQLite), an INTEGER PRIMARY KEY that SQLite
 * numbers itself is an identity column. SQLite's GLOB checks on money become regular expressions
 * of the canonical decimal form. SQLite's triggers are PL/pgSQL triggers of the same names.
 */
import { sql, type Kysely } from 'kysely';
import { MERCHANT_TABLES } from './postgres-baseline/merchants.js';
import { PAYING_TABLES } from './postgres-baseline/paying.js';
import { RECEIVING_TABLES } from './postgres-baseline/receiving.js';
import { INVOICE_ADDRESS, STATUS_COUNTS } from './postgres-baseline/triggers.js';
import { WEBHOOK_TABLES } from './postgres-baseline/webhooks.js';

/** In this order: a table's foreign keys name tables of the parts before it (merchants first). */
const PARTS = [MERCHANT_TABLES, RECEIVING_TABLES, PAYING_TABLES, WEBHOOK_TABLES, STATUS_COUNTS, INVOICE_ADDRESS];

export async function createPostgresBaseline(db: Kysely<unknown>): Promise<void> {
  // One multi-statement string per part: the simple query protocol runs it as is, inside the
  // migration's transaction.
  for (const part of PARTS) await sql.raw(part).execute(db);
}

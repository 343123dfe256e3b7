/**
 * Insertion order of a table's rows, for ties the domain breaks "by insertion order" (DESIGN §5:
 * the oldest open invoice of a permanent address). SQLite's rowid; a PostgreSQL port needs a
 * sequence column here.
 */
import { sql } from 'kysely';

export const insertionOrder = sql`rowid`;

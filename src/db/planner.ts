/**
 * Query-planner hints, kept in src/db with the other SQLite specifics (DESIGN.md: queries stay in
 * kysely's portable subset elsewhere). `serve` never runs ANALYZE, and without its statistics
 * SQLite sometimes prefers an index that serves a sort or a range over the one that finds the few
 * rows asked for (docs/decisions.md, "Every scheduled query, audited").
 */
import { sql, type RawBuilder } from 'kysely';

/**
 * The column's value, compared or grouped by value: SQLite's unary `+` keeps the value but stops
 * the planner from choosing an index on that column for this term. Another database would take
 * the plain column here.
 */
export function byValue<T = unknown>(column: string): RawBuilder<T> {
  return sql<T>`+${sql.ref(column)}`;
}

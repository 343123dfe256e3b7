/**
 * The line a benchmark prints for `npm run bench`'s summary table: run-all.ts collects every
 * stdout line that starts with SUMMARY. A benchmark may print any number of them.
 */
export interface SummaryRow {
  /** What was measured, e.g. "GET /v1/invoices/{id} / bare GET". */
  metric: string;
  /** The figure as printed, e.g. "0.62" or "3,410/s". */
  value: string;
  /** The target as text, e.g. ">= 0.5"; empty when there is none. */
  target?: string;
  /** Whether the target is met; undefined when there is no target. */
  ok?: boolean;
}

export function summary(row: SummaryRow): void {
  console.log(`SUMMARY ${JSON.stringify(row)}`);
}

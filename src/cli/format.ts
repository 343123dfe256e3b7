/** Human output helpers for CLI commands (the --json output is the returned value itself). */
export function table(rows: Array<Record<string, unknown>>, columns: string[]): string {
  if (rows.length === 0) return '(none)';
  const cell = (v: unknown) => (v === null || v === undefined ? '-' : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => v.padEnd(widths[i] as number))
      .join('  ')
      .trimEnd();
  return [line(columns), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join('\n');
}

export function record(obj: Record<string, unknown>): string {
  const width = Math.max(...Object.keys(obj).map((k) => k.length));
  return Object.entries(obj)
    .map(
      ([k, v]) =>
        `${k.padEnd(width)}  ${v === null || v === undefined ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v)}`,
    )
    .join('\n');
}

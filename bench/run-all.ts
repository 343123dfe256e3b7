/**
 * Runs every benchmark in bench/ one after another (npm run bench) and prints one summary table.
 * Discovery is generic: every bench/*.ts except this file and the server halves (*-server.ts) is
 * a benchmark. A benchmark reports its headline figures as `SUMMARY {json}` lines
 * (bench/lib/summary.ts); one that prints none still gets a row with its exit status.
 *
 *   npm run bench                 every benchmark
 *   npm run bench -- api scale    only these (file names without .ts)
 *
 * `replicas` needs a PostgreSQL server (BENCH_POSTGRES_URL, default the local one as postgres).
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { SummaryRow } from './lib/summary.js';

const dir = import.meta.dirname;
const only = new Set(process.argv.slice(2));
const benches = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && f !== 'run-all.ts' && !f.endsWith('-server.ts') && !f.endsWith('.d.ts'))
  .filter((f) => only.size === 0 || only.has(f.replace(/\.ts$/, '')))
  .sort();

interface Row extends SummaryRow {
  bench: string;
}

/** Runs one benchmark, echoing its output, and returns its SUMMARY rows and exit status. */
function run(file: string): Promise<{ rows: Row[]; status: number | null; seconds: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(dir, file)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const rows: Row[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    console.log(line);
    if (!line.startsWith('SUMMARY ')) return;
    try {
      rows.push({ bench: file.replace(/\.ts$/, ''), ...(JSON.parse(line.slice(8)) as SummaryRow) });
    } catch {
      // A malformed summary line stays in the log above; it just has no row.
    }
  });
  return new Promise((resolve) =>
    child.on('close', (status) => resolve({ rows, status, seconds: (performance.now() - started) / 1000 })),
  );
}

const table: Row[] = [];
let failed = 0;
for (const b of benches) {
  console.log(`\n== ${b}`);
  const r = await run(b);
  if (r.status !== 0) failed += 1;
  const name = b.replace(/\.ts$/, '');
  if (r.rows.length === 0 || r.status !== 0)
    table.push({
      bench: name,
      metric: r.status === 0 ? '(ran; no summary figures)' : `(failed: exit ${r.status})`,
      value: `${r.seconds.toFixed(0)} s`,
    });
  table.push(...r.rows);
}

const cols = ['bench', 'metric', 'value', 'target', 'ok'] as const;
const cell = (r: Row, c: (typeof cols)[number]) =>
  c === 'ok' ? (r.ok === undefined ? '' : r.ok ? 'yes' : 'NO') : String(r[c] ?? '');
const widths = cols.map((c) => Math.max(c.length, ...table.map((r) => cell(r, c).length)));
const line = (vals: string[]) => vals.map((v, i) => v.padEnd(widths[i] as number)).join('  ');
console.log(`\n== summary (${new Date().toISOString()})`);
console.log(line([...cols]));
console.log(line(widths.map((w) => '-'.repeat(w))));
for (const r of table) console.log(line(cols.map((c) => cell(r, c))));
process.exit(failed ? 1 : 0);

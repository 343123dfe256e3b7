/**
 * The soak with faults (docs/reliability.md): payments, payouts and API traffic
 * together against the devnet for a fixed time, with node faults, forks and SIGTERM/SIGKILL
 * restarts of a real `serve`, then the invariants after everything settled.
 *   node --import tsx scripts/soak.ts --duration 30m [--seed N] [--json] [--keep DIR] [--restart-every 10s]
 *     [--database-url postgres://…]   (default: a SQLite file in the run's directory)
 * Prints the summary (with the seed, to replay); exits 1 on any violation.
 */
import { parseArgs } from 'node:util';
import { runSoak } from '../test/soak/harness/run.js';
import { parseDuration } from '../src/whitelist/duration.js';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5m' },
    seed: { type: 'string' },
    json: { type: 'boolean', default: false },
    keep: { type: 'string' },
    'restart-every': { type: 'string' },
    'database-url': { type: 'string' },
  },
});
const seed = values.seed === undefined ? Math.floor(Math.random() * 1_000_000) : Number(values.seed);
if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`--seed must be a whole number, got ${values.seed}`);
const durationMs = parseDuration(values.duration, 24 * 3600_000);
const started = Date.now();
const log = (line: string) => process.stderr.write(`[soak ${((Date.now() - started) / 1000).toFixed(1)} s] ${line}\n`);
log(`seed ${seed} (replay: --seed ${seed}), duration ${values.duration}`);
const restartGapMs =
  values['restart-every'] === undefined ? undefined : parseDuration(values['restart-every'], 3600_000);
const summary = await runSoak({
  durationMs,
  seed,
  ...(values.keep ? { keepDir: values.keep } : {}),
  ...(values['database-url'] ? { databaseUrl: values['database-url'] } : {}),
  ...(restartGapMs ? { restartGapMs } : {}),
  log,
});
if (values.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
else {
  console.log(JSON.stringify({ ...summary, violations: undefined }, null, 2));
  for (const [kind, list] of Object.entries(summary.violations)) {
    console.log(`${list.length === 0 ? 'OK  ' : 'FAIL'} ${kind}${list.length ? `: ${list.length} violations` : ''}`);
    for (const v of list.slice(0, 50)) console.log(`     ${v}`);
  }
  console.log(summary.ok ? `soak held every invariant (seed ${seed})` : `soak FAILED (seed ${seed})`);
}
process.exit(summary.ok ? 0 : 1);

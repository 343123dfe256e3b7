/**
 * sqlmap against a real `serve` on every /v1 route and parameter (test/security/sqlmap-run.ts):
 *   node --import tsx scripts/sqlmap.ts [--level 1..5] [--risk 1..3] [--json]
 * The default (level 1, risk 1) takes about a minute; `--level 5 --risk 3` is the thorough run.
 * Prints a table per injection point and a verdict; exits 1 when anything is injectable, a target
 * was not tested to the end, or serve answered a 5xx; 2 when sqlmap is not installed.
 */
import { parseArgs } from 'node:util';
import { allTargets, formatReport, runSqlmap, sqlmapAvailable } from '../test/security/sqlmap-run.js';
import { startTarget } from '../test/security/target.js';

const { values } = parseArgs({
  options: {
    level: { type: 'string', default: '1' },
    risk: { type: 'string', default: '1' },
    json: { type: 'boolean', default: false },
  },
});
const level = Number(values.level);
const risk = Number(values.risk);
if (![1, 2, 3, 4, 5].includes(level) || ![1, 2, 3].includes(risk)) {
  console.error('--level must be 1 to 5 and --risk 1 to 3');
  process.exit(2);
}
if (!sqlmapAvailable()) {
  console.error('sqlmap is not installed (Debian: apt-get install sqlmap)');
  process.exit(2);
}
// sqlmap sends thousands of requests a minute: limits high enough never to answer 429.
const target = await startTarget({ env: { API_RATE_LIMIT_PER_IP: '1000000', API_RATE_LIMIT_PER_KEY: '1000000' } });
try {
  const report = await runSqlmap(target, allTargets(target), {
    level,
    risk,
    onResult: (r) =>
      values.json || console.error(`${r.target.name}: ${r.verdict}, ${r.requests} requests, ${r.seconds.toFixed(1)} s`),
  });
  console.log(values.json ? JSON.stringify(report, null, 2) : formatReport(report));
  process.exitCode = report.ok ? 0 : 1;
} finally {
  await target.stop();
}

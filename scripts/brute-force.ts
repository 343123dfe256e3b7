/**
 * An API key brute force against a real `serve` (test/security/brute-force-run.ts):
 *   node --import tsx scripts/brute-force.ts [--seconds 30] [--ips 32] [--concurrency 8] [--json]
 * Attackers on 127.0.0.2… send wrong and malformed keys while the key owner keeps working from
 * 127.0.0.1. Prints answers by status, argon2 verifications per second against the cap, serve's
 * CPU (cores) and RSS, the owner's answers and latency, and a verdict; exits 1 when a wrong key was
 * accepted, the owner's right key got a 401, the cap was passed or CPU went past its bound.
 */
import { parseArgs } from 'node:util';
import { formatReport, runBruteForce } from '../test/security/brute-force-run.js';
import { startTarget } from '../test/security/target.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '30' },
    ips: { type: 'string', default: '32' },
    concurrency: { type: 'string', default: '8' },
    json: { type: 'boolean', default: false },
  },
});
const seconds = Number(values.seconds);
const ips = Number(values.ips);
const concurrency = Number(values.concurrency);
if (!(seconds >= 1) || !(ips >= 1 && ips <= 60_000) || !(concurrency >= 1)) {
  console.error('--seconds ≥ 1, --ips 1..60000 and --concurrency ≥ 1');
  process.exit(2);
}
// Production limits (no API_RATE_LIMIT_* overrides) and production argon2 parameters for every key.
const target = await startTarget({ spareKeys: 3 });
try {
  const report = await runBruteForce(target, {
    seconds,
    ips,
    concurrency,
    onSecond: (s) =>
      values.json ||
      console.error(
        `[${s.second.toFixed(1)} s] ${s.attackAnswers} attack answers, ${s.verifications.toFixed(1)} argon2 verifications/s, ${s.cores.toFixed(2)} cores, RSS ${s.rssMb.toFixed(0)} MB, event-loop delay ≤ ${s.loopLagMs.toFixed(0)} ms`,
      ),
  });
  console.log(values.json ? JSON.stringify(report, null, 2) : formatReport(report));
  process.exitCode = report.problems.length === 0 ? 0 : 1;
} finally {
  await target.stop();
}

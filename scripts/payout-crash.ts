/**
 * The payout crash test for longer runs than CI's (test/payouts/crash.test.ts):
 *   node --import tsx scripts/payout-crash.ts [--payouts 300] [--kills 60] [--kill-after-sign 0.05] [--faults]
 * Prints progress and the final report; exits 1 when a promise was broken.
 */
import { parseArgs } from 'node:util';
import { runCrashTest } from '../test/payouts/crash/harness.js';

const { values } = parseArgs({
  options: {
    payouts: { type: 'string', default: '300' },
    kills: { type: 'string', default: '60' },
    'kill-after-sign': { type: 'string', default: '0.05' },
    faults: { type: 'boolean', default: false },
  },
});
const started = Date.now();
const report = await runCrashTest({
  payouts: Number(values.payouts),
  kills: Number(values.kills),
  killAfterSign: Number(values['kill-after-sign']),
  cancelEvery: 11,
  faults: values.faults
    ? [
        { kind: 'busy', times: 6 },
        { kind: 'lost_answer', path: '/wallet/broadcasttransaction', times: 3 },
        { kind: 'hang', path: '/wallet/broadcasttransaction', times: 2 },
      ]
    : [{ kind: 'lost_answer', path: '/wallet/broadcasttransaction', times: 3 }],
  log: (line) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${line}`),
});
console.log(JSON.stringify(report, null, 2));
process.exit(report.problems.length === 0 ? 0 : 1);

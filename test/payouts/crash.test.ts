/**
 * Exactly once under crashes: `serve` in a child process is SIGKILLed at random
 * moments (and kills itself right after storing a signed transaction, before its broadcast) and
 * restarted until every payout is final; the chain then holds one successful transfer per
 * confirmed payout and none for rejected or failed ones, and the ledger balances. A second run
 * adds node faults on the broadcast path: SERVER_BUSY, lost answers and hangs.
 * Longer runs: `node --import tsx scripts/payout-crash.ts --payouts 300 --kills 60`.
 */
import { describe, expect, it } from 'vitest';
import { runCrashTest } from './crash/harness.js';

describe('payout worker crash test', () => {
  it('50 payouts, 10 random SIGKILLs plus kills between sign and broadcast, lost answers: each confirmed payout sent exactly once', async () => {
    const report = await runCrashTest({
      payouts: 50,
      kills: 10,
      killAfterSign: 0.08,
      cancelEvery: 9,
      faults: [{ kind: 'lost_answer', path: '/wallet/broadcasttransaction', times: 3 }],
    });
    expect(report.problems).toEqual([]);
    expect(report.payouts).toBe(50);
    expect(report.testKills).toBeGreaterThanOrEqual(10);
    expect(report.byStatus.confirmed ?? 0).toBeGreaterThan(0);
    expect((report.byStatus.confirmed ?? 0) + (report.byStatus.rejected ?? 0) + (report.byStatus.failed ?? 0)).toBe(50);
  }, 300_000);

  it('node faults during broadcast (busy, lost answer, hang) with kills: still exactly once', async () => {
    const report = await runCrashTest({
      payouts: 20,
      kills: 3,
      killAfterSign: 0.05,
      faults: [
        { kind: 'busy', times: 6 },
        { kind: 'lost_answer', path: '/wallet/broadcasttransaction', times: 2 },
        { kind: 'hang', path: '/wallet/broadcasttransaction', times: 2 },
      ],
    });
    expect(report.problems).toEqual([]);
    expect(report.byStatus.confirmed).toBe(20);
  }, 240_000);
});

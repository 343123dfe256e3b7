/**
 * Test hooks of the payout worker, read from the environment once; never set in production. They
 * put a process in the worst places of the signing path, for the tests that prove exactly-once
 * payouts across crashes (test/payouts/crash) and across replicas (test/replicas).
 */
import pino from 'pino';

/** PAYGATE_TEST_KILL_AFTER_SIGN: the probability, 0..1, of a SIGKILL right after a signed transaction was stored, before its broadcast. */
const killAfterStore = Number(process.env.PAYGATE_TEST_KILL_AFTER_SIGN ?? 0);
/** PAYGATE_TEST_STOP_AFTER_SIGN=1: a SIGSTOP, once, right after the first signature and before it is stored (a holder paused at the worst moment). */
let stopAfterSign = process.env.PAYGATE_TEST_STOP_AFTER_SIGN === '1';

export const testHooks = {
  signed(payoutId: string, txid: string): void {
    if (!stopAfterSign) return;
    stopAfterSign = false;
    // Written to stdout synchronously: the app's logger writes on a libuv thread, which the stop
    // may freeze before the line is out, and the test waits for the line while the process is stopped.
    pino(pino.destination({ dest: 1, sync: true })).info(
      { payout: payoutId, txid },
      'test hook: stopping after signing, before storing',
    );
    process.kill(process.pid, 'SIGSTOP');
  },
  stored(): void {
    if (killAfterStore > 0 && Math.random() < killAfterStore) process.kill(process.pid, 'SIGKILL');
  },
};

/**
 * transactionOutcome against the devnet's java-tron answers: a plain TRX transfer (its receipt has
 * no result) is decided by the transaction's contractRet, a TRC20 call by its receipt, a reverted
 * call is a failure with its reason, and an unknown txid is absent, never a guess.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transactionOutcome } from '../../src/chain/outcome.js';
import { createTronClient } from '../../src/chain/tronweb-client.js';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';

let devnet: Devnet;
beforeAll(async () => {
  devnet = await startDevnet({ blockTimeMs: 0 });
});
afterAll(() => devnet.close());

describe('transactionOutcome', () => {
  it('reads TRX transfers, TRC20 calls, failures and unknown transactions', async () => {
    const chain = createTronClient({ fullHost: devnet.url, retries: 0 });
    const [a, b] = [devnet.accounts[0]!, devnet.accounts[1]!];
    const trx = devnet.control.pay({ from: 0, to: b.address, asset: 'TRX_TRON', amount: 1_000_000n, mine: true });
    const info = await chain.getTransactionInfo(trx.txid);
    expect(info?.result).toBe('UNKNOWN'); // what makes the second question necessary
    expect((await transactionOutcome(chain, trx.txid)).state).toBe('success');

    const token = devnet.control.pay({ from: 1, to: a.address, asset: 'USDT_TRON', amount: 1_000_000n, mine: true });
    expect((await transactionOutcome(chain, token.txid)).state).toBe('success');

    // A fee_limit far below the transfer's energy: the call runs out of energy on chain.
    const starved = devnet.control.pay({
      from: 1,
      to: a.address,
      asset: 'USDT_TRON',
      amount: 1_000_000n,
      feeLimit: 1_000n,
      mine: true,
    });
    const failed = await transactionOutcome(chain, starved.txid);
    expect(failed).toMatchObject({ state: 'failed', reason: 'OUT_OF_ENERGY' });

    expect((await transactionOutcome(chain, 'ab'.repeat(32))).state).toBe('absent');
  });
});

/**
 * A transaction counts as successful only when the node says so: java-tron omits enum zero values,
 * so a missing `receipt.result` (plain TRX transfers, or a node that lies by omission) must not
 * read as SUCCESS. Shapes from the ledger-live fixtures of real mainnet answers.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseInfo, parseTx } from '../../src/chain/parse.js';

const load = (p: string) => JSON.parse(readFileSync(new URL(`../fixtures/tron/${p}`, import.meta.url), 'utf8'));
const infos = load('ledger-live/getTransactionInfoById.fixture.json') as Record<string, Record<string, unknown>>;

describe('transaction outcome', () => {
  it('a TRC20 call whose receipt says SUCCESS is SUCCESS', () => {
    const ok = Object.values(infos).find((i) => (i.receipt as { result?: string })?.result === 'SUCCESS')!;
    expect(parseInfo(ok)).toMatchObject({ result: 'SUCCESS', receiptResult: 'SUCCESS' });
  });

  it('a plain TRX transfer info (no receipt.result) is UNKNOWN, not SUCCESS: its outcome is contractRet', () => {
    const trx = Object.values(infos).find(
      (i) => (i.receipt as { result?: string })?.result === undefined && i.result === undefined,
    )!;
    expect(trx).toBeDefined();
    expect(parseInfo(trx)).toMatchObject({ result: 'UNKNOWN', receiptResult: 'DEFAULT' });
  });

  it('a missing receipt, an empty result or an unknown top-level code is never SUCCESS', () => {
    const base = { id: 'ab'.repeat(32), blockNumber: 5 };
    expect(parseInfo(base).result).toBe('UNKNOWN');
    expect(parseInfo({ ...base, receipt: { result: '' } }).result).toBe('UNKNOWN');
    expect(parseInfo({ ...base, result: 'WEIRD', receipt: { result: 'SUCCESS' } }).result).toBe('FAILED');
    expect(parseInfo({ ...base, result: 'FAILED', receipt: { result: 'SUCCESS' } }).result).toBe('FAILED');
    expect(parseInfo({ ...base, receipt: { result: 'REVERT' } })).toMatchObject({
      result: 'FAILED',
      receiptResult: 'REVERT',
    });
    expect(parseInfo({ ...base, receipt: { result: 'OUT_OF_ENERGY' } }).result).toBe('FAILED');
  });

  it('a block transaction without ret has no contractRet (not success)', () => {
    const tx = {
      txID: 'cd'.repeat(32),
      raw_data: {
        contract: [
          {
            type: 'TransferContract',
            parameter: {
              value: { amount: 5, owner_address: '41' + '1'.repeat(40), to_address: '41' + '2'.repeat(40) },
            },
          },
        ],
      },
    };
    const parsed = parseTx(tx);
    expect(parsed.contractRet).toBeUndefined();
    expect(parsed.toHex).toBe('41' + '2'.repeat(40));
    expect(parseTx({ ...tx, ret: [{ contractRet: 'REVERT' }] }).contractRet).toBe('REVERT');
  });
});

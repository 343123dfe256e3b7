/** Every broadcast refusal code, each produced by the matching bad transaction (real signatures). */
import { TronWeb } from 'tronweb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { transferCalldata } from '../../src/chain/trc20.js';
import type { TronTransactionJson } from '../../src/chain/tx-codec.js';
import { buildTransaction, refOf, signTransaction, type RefBlock } from '../../src/devnet/builder.js';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';

let devnet: Devnet;
const hex = (a: string) => TronWeb.address.toHex(a).toLowerCase();
const fresh = (seed: string) => TronWeb.address.fromPrivateKey(seed.repeat(32)) as string;
const broadcast = async (tx: unknown): Promise<any> =>
  (await fetch(`${devnet.url}/wallet/broadcasttransaction`, { method: 'POST', body: JSON.stringify(tx) })).json();
const message = (a: any) => Buffer.from(a.message ?? '', 'hex').toString();

beforeAll(async () => {
  devnet = await startDevnet({ blockTimeMs: 0, clock: new ManualClock() });
  devnet.control.mine(3);
});
afterAll(async () => devnet.close());

function trx(
  from: { address: string; privateKey: string },
  to: string,
  amount: number,
  ref: RefBlock = refOf(devnet.control.chain.head),
  expirationMs?: number,
): TronTransactionJson {
  const tx = buildTransaction(
    'TransferContract',
    { owner_address: hex(from.address), to_address: hex(to), amount },
    ref,
    expirationMs ? { expirationMs } : {},
  );
  return signTransaction(tx, from.privateKey);
}

describe('broadcast refusals', () => {
  it('SIGERROR: signed by a key that is not the owner', async () => {
    const a = devnet.accounts[0]!;
    const tx = buildTransaction(
      'TransferContract',
      { owner_address: hex(a.address), to_address: hex(fresh('31')), amount: 1 },
      refOf(devnet.control.chain.head),
    );
    const answer = await broadcast(signTransaction(tx, devnet.accounts[1]!.privateKey));
    expect(answer.code).toBe('SIGERROR');
    expect(answer.txid).toBe(tx.txID);
  });

  it('SIGERROR: raw_data changed after signing (txID no longer sha256 of it)', async () => {
    const tx = trx(devnet.accounts[0]!, fresh('32'), 1_000_000);
    const tampered = structuredClone(tx);
    (tampered.raw_data.contract[0]!.parameter.value as any).amount = 9_000_000;
    expect((await broadcast(tampered)).code).toBe('SIGERROR');
  });

  it('SIGERROR: no signature at all', async () => {
    const tx = buildTransaction(
      'TransferContract',
      { owner_address: hex(devnet.accounts[0]!.address), to_address: hex(fresh('33')), amount: 1 },
      refOf(devnet.control.chain.head),
    );
    expect((await broadcast(tx)).code).toBe('SIGERROR');
  });

  it('signatures with v = 0/1 are accepted like 27/28', async () => {
    const tx = trx(devnet.accounts[0]!, fresh('34'), 1_000_000);
    const sig = tx.signature![0]!;
    const v = parseInt(sig.slice(128), 16) - 27;
    const answer = await broadcast({ ...tx, signature: [sig.slice(0, 128) + v.toString(16).padStart(2, '0')] });
    expect(answer).toMatchObject({ result: true, code: 'SUCCESS' });
  });

  it('DUP_TRANSACTION_ERROR: the same signed bytes twice (pending, then in a block)', async () => {
    const tx = trx(devnet.accounts[0]!, fresh('35'), 1_000_000);
    expect((await broadcast(tx)).result).toBe(true);
    expect((await broadcast(tx)).code).toBe('DUP_TRANSACTION_ERROR');
    devnet.control.mine(1);
    expect((await broadcast(tx)).code).toBe('DUP_TRANSACTION_ERROR');
  });

  it('TAPOS_ERROR: reference block not on this chain', async () => {
    const head = devnet.control.chain.head;
    const bogus = { ...refOf(head), id: head.id.slice(0, 16) + 'f'.repeat(48) };
    const answer = await broadcast(trx(devnet.accounts[0]!, fresh('36'), 1_000_000, bogus));
    expect(answer.code).toBe('TAPOS_ERROR');
  });

  it('TRANSACTION_EXPIRATION_ERROR: expired, and more than 24 h ahead', async () => {
    const head = refOf(devnet.control.chain.head);
    const old = { ...head, timestamp: head.timestamp - 120_000 };
    expect((await broadcast(trx(devnet.accounts[0]!, fresh('37'), 1_000_000, old))).code).toBe(
      'TRANSACTION_EXPIRATION_ERROR',
    );
    const far = await broadcast(trx(devnet.accounts[0]!, fresh('37'), 1_000_000, head, 25 * 3600_000));
    expect(far.code).toBe('TRANSACTION_EXPIRATION_ERROR');
    expect(message(far)).toMatch(/less than or equal/);
  });

  it('CONTRACT_VALIDATE_ERROR: more TRX than the balance, and an unknown owner', async () => {
    const answer = await broadcast(trx(devnet.accounts[0]!, fresh('38'), 10 ** 15));
    expect(answer.code).toBe('CONTRACT_VALIDATE_ERROR');
    expect(message(answer)).toMatch(/balance is not sufficient/);
    const stranger = { address: fresh('39'), privateKey: '39'.repeat(32) };
    expect((await broadcast(trx(stranger, fresh('38'), 1))).code).toBe('CONTRACT_VALIDATE_ERROR');
  });

  it('BANDWITH_ERROR: free bandwidth used up and no TRX to burn for the bytes', async () => {
    const key = { address: fresh('3a'), privateKey: '3a'.repeat(32) };
    devnet.control.fund({ address: key.address, asset: 'TRX_TRON', amount: 1n });
    devnet.control.fund({ address: key.address, asset: 'USDT_TRON', amount: 1_000_000n, mine: true });
    const usdt = (to: string) =>
      signTransaction(
        buildTransaction(
          'TriggerSmartContract',
          { owner_address: hex(key.address), contract_address: devnet.tokens[0]!.hex, data: transferCalldata(to, 1n) },
          refOf(devnet.control.chain.head),
          {
            feeLimit: 10_000_000,
          },
        ),
        key.privateKey,
      );
    // The first one fits into the 600 free points (and runs out of energy: 1 sun buys none).
    expect((await broadcast(usdt(fresh('3b')))).result).toBe(true);
    const answer = await broadcast(usdt(fresh('3c')));
    expect(answer.code).toBe('BANDWITH_ERROR');
  });

  it('SERVER_BUSY: an injected busy node', async () => {
    devnet.control.addFault({ kind: 'busy', times: 1 });
    const tx = trx(devnet.accounts[0]!, fresh('3d'), 1_000_000);
    expect((await broadcast(tx)).code).toBe('SERVER_BUSY');
    expect((await broadcast(tx)).result).toBe(true);
  });

  it('malformed bodies get java-tron style {"Error"} answers', async () => {
    const res = await fetch(`${devnet.url}/wallet/broadcasttransaction`, { method: 'POST', body: '{not json' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { Error?: string }).Error).toBeTruthy();
    expect((await broadcast({})).Error).toBeTruthy();
  });
});

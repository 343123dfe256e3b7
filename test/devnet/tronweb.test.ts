/** tronweb pointed at the devnet, as a script would use a real node: build, sign, broadcast, read back. */
import { TronWeb } from 'tronweb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { decodeTransferLog, TRANSFER_TOPIC } from '../../src/chain/trc20.js';
import { recoverSigner, txIdOf } from '../../src/chain/tx-codec.js';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';

let devnet: Devnet;
let tw: TronWeb;
let payer: { address: string; privateKey: string };
const post = async (path: string, body: unknown): Promise<any> =>
  (await fetch(devnet.url + path, { method: 'POST', body: JSON.stringify(body) })).json();
const fresh = (seed: string) => TronWeb.address.fromPrivateKey(seed.repeat(32)) as string;

beforeAll(async () => {
  devnet = await startDevnet({ blockTimeMs: 0, clock: new ManualClock() });
  payer = devnet.accounts[1]!;
  tw = new TronWeb({ fullHost: devnet.url, privateKey: payer.privateKey });
});
afterAll(async () => devnet.close());

async function sendTrc20(
  to: string,
  amount: bigint,
  feeLimit = 50_000_000,
  token = devnet.tokens[0]!.address,
  key = payer,
) {
  const { transaction } = await tw.transactionBuilder.triggerSmartContract(
    token,
    'transfer(address,uint256)',
    { feeLimit },
    [
      { type: 'address', value: to },
      { type: 'uint256', value: amount.toString() },
    ],
    key.address,
  );
  const signed = await tw.trx.sign(transaction, key.privateKey);
  const res = await tw.trx.sendRawTransaction(signed);
  return { signed, res };
}

describe('tronweb against the devnet', () => {
  it('sends TRX to a new address: activation costs the sender 1.1 TRX', async () => {
    const to = fresh('21');
    const before = BigInt(await tw.trx.getUnconfirmedBalance(payer.address));
    const tx = await tw.transactionBuilder.sendTrx(to, 2_000_000, payer.address);
    expect(txIdOf(tx.raw_data_hex)).toBe(tx.txID);
    const signed = await tw.trx.sign(tx);
    expect(recoverSigner(signed.txID, signed.signature[0]!)).toBe(TronWeb.address.toHex(payer.address).toLowerCase());
    const res = await tw.trx.sendRawTransaction(signed);
    expect(res.result).toBe(true);
    expect(await tw.trx.getUnconfirmedTransactionInfo(signed.txID)).toEqual({});
    devnet.control.mine(1);
    const info: any = await tw.trx.getUnconfirmedTransactionInfo(signed.txID);
    expect(info).toMatchObject({ id: signed.txID, fee: 1_100_000, receipt: { net_fee: 100_000 } });
    expect(BigInt(await tw.trx.getUnconfirmedBalance(payer.address))).toBe(before - 2_000_000n - 1_100_000n);
    expect(await tw.trx.getUnconfirmedBalance(to)).toBe(2_000_000);
    const block: any = await tw.trx.getBlockByNumber(info.blockNumber);
    const inBlock = block.transactions.find((t: any) => t.txID === signed.txID);
    expect(inBlock.ret).toEqual([{ contractRet: 'SUCCESS' }]);
    expect(inBlock.raw_data).toEqual(signed.raw_data);
  });

  it('a second TRX transfer to the now active address uses free bandwidth', async () => {
    const to = fresh('21');
    const signed = await tw.trx.sign(await tw.transactionBuilder.sendTrx(to, 1_000_000, payer.address));
    await tw.trx.sendRawTransaction(signed);
    devnet.control.mine(1);
    const info: any = await tw.trx.getUnconfirmedTransactionInfo(signed.txID);
    expect(info.fee).toBeUndefined();
    expect(info.receipt.net_usage).toBeGreaterThan(200);
  });

  it('sends USDT to a new holder (130,285 energy, burned) and to an existing one (64,285), with Transfer logs', async () => {
    const to = fresh('22');
    const first = await sendTrc20(to, 5_000_000n);
    expect(first.res.result).toBe(true);
    devnet.control.mine(1);
    const info: any = await tw.trx.getUnconfirmedTransactionInfo(first.signed.txID);
    expect(info.receipt).toMatchObject({ energy_usage_total: 130_285, energy_fee: 13_028_500, result: 'SUCCESS' });
    expect(info.log[0].address).toBe(TronWeb.address.toHex(devnet.tokens[0]!.address).slice(2).toLowerCase());
    expect(info.log[0].topics[0]).toBe(TRANSFER_TOPIC);
    expect(decodeTransferLog(info.log[0])).toEqual({
      contract: devnet.tokens[0]!.address,
      from: payer.address,
      to,
      amount: 5_000_000n,
    });
    const second = await sendTrc20(to, 1n);
    devnet.control.mine(1);
    const info2: any = await tw.trx.getUnconfirmedTransactionInfo(second.signed.txID);
    expect(info2.receipt.energy_usage_total).toBe(64_285);
    const c = await tw.contract(
      [
        {
          constant: true,
          inputs: [{ name: 'who', type: 'address' }],
          name: 'balanceOf',
          outputs: [{ name: '', type: 'uint256' }],
          type: 'function',
          stateMutability: 'view',
        },
      ],
      devnet.tokens[0]!.address,
    );
    expect((await c.balanceOf(to).call()).toString()).toBe('5000001');
    const infos: any[] = await post('/wallet/gettransactioninfobyblocknum', { num: info2.blockNumber });
    expect(infos.map((i) => i.id)).toEqual([second.signed.txID]);
  });

  it('USDD has 18 decimals and moves amounts beyond 2^53', async () => {
    const usdd = devnet.tokens.find((t) => t.asset === 'USDD_TRON')!;
    const answer = await post('/wallet/triggerconstantcontract', {
      owner_address: payer.address,
      contract_address: usdd.address,
      function_selector: 'decimals()',
      visible: true,
    });
    expect(BigInt(`0x${answer.constant_result[0]}`)).toBe(18n);
    const to = fresh('23');
    const { res } = await sendTrc20(to, 12_345_678_901_234_567_890n, 50_000_000, usdd.address);
    expect(res.result).toBe(true);
    devnet.control.mine(1);
    expect(devnet.control.balances(to).tokens.USDD_TRON).toBe(12_345_678_901_234_567_890n);
  });

  it('a transfer beyond the token balance is included with REVERT and no log', async () => {
    const poor = devnet.accounts[4]!;
    const { signed, res } = await sendTrc20(fresh('24'), 10n ** 30n, 50_000_000, devnet.tokens[1]!.address, poor);
    expect(res.result).toBe(true);
    devnet.control.mine(1);
    const info: any = await tw.trx.getUnconfirmedTransactionInfo(signed.txID);
    expect(info.result).toBe('FAILED');
    expect(info.receipt.result).toBe('REVERT');
    expect(info.log).toBeUndefined();
    expect(Buffer.from(info.resMessage, 'hex').toString()).toMatch(/REVERT/);
    const tx: any = await tw.trx
      .getTransaction(signed.txID)
      .catch(() => post('/wallet/gettransactionbyid', { value: signed.txID }));
    expect(tx.ret[0].contractRet).toBe('REVERT');
  });

  it('a fee_limit below the energy cost ends OUT_OF_ENERGY and burns the whole limit', async () => {
    const { signed } = await sendTrc20(fresh('25'), 1n, 1_000_000);
    devnet.control.mine(1);
    const info: any = await tw.trx.getUnconfirmedTransactionInfo(signed.txID);
    expect(info.receipt.result).toBe('OUT_OF_ENERGY');
    expect(info.receipt.energy_fee).toBe(1_000_000);
    expect(devnet.control.balances(fresh('25')).tokens.USDT_TRON).toBe(0n);
  });

  it('serves blocks with visible addresses, proto3 omissions and real block ids', async () => {
    const head: any = await post('/wallet/getnowblock', { visible: true });
    expect(head.block_header.raw_data.witness_address).toMatch(/^T/);
    const empty = devnet.control.mine(1).blocks[0]!;
    const b: any = await post('/wallet/getblockbynum', { num: empty.number });
    expect(b.transactions).toBeUndefined();
    expect(b.blockID.slice(0, 16)).toBe(empty.number.toString(16).padStart(16, '0'));
    expect(b.block_header.raw_data.parentHash).toBe(devnet.control.chain.blocks[empty.number - 1]!.id);
    expect(await post('/wallet/getblockbynum', { num: 10_000 })).toEqual({});
    expect(await post('/wallet/gettransactionbyid', { value: 'ab'.repeat(32) })).toEqual({});
    expect(await post('/wallet/getblockbylimitnext', { startNum: 0, endNum: 500 })).toEqual({});
    expect(await post('/wallet/getblockbylimitnext', { startNum: 5, endNum: 5 })).toEqual({});
    expect(await post('/wallet/getaccount', { address: fresh('26'), visible: true })).toEqual({});
  });

  it('freezes and delegates energy, and the receiver then pays a transfer with it', async () => {
    const receiver = devnet.accounts[3]!;
    const freeze = await tw.transactionBuilder.freezeBalanceV2(20_000_000_000, 'ENERGY', payer.address);
    expect((await tw.trx.sendRawTransaction(await tw.trx.sign(freeze))).result).toBe(true);
    const delegate = await tw.transactionBuilder.delegateResource(
      14_000_000_000,
      receiver.address,
      'ENERGY',
      payer.address,
    );
    expect((await tw.trx.sendRawTransaction(await tw.trx.sign(delegate))).result).toBe(true);
    devnet.control.mine(1);
    const res: any = await post('/wallet/getaccountresource', { address: receiver.address, visible: true });
    expect(res.EnergyLimit).toBe(140_000);
    const { signed } = await sendTrc20(fresh('27'), 1n, 50_000_000, devnet.tokens[0]!.address, receiver);
    devnet.control.mine(1);
    const info: any = await tw.trx.getUnconfirmedTransactionInfo(signed.txID);
    expect(info.receipt).toMatchObject({ energy_usage: 130_285, energy_usage_total: 130_285, result: 'SUCCESS' });
    expect(info.receipt.energy_fee).toBeUndefined();
  });
});

/**
 * Real mainnet/Nile data (test/fixtures/tron) through our codec: txID = sha256(raw_data),
 * signer recovery, raw_data_hex decoding, and USDT Transfer logs.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromHexAddress } from '../../src/chain/address.js';
import { parseInfo, parseTx } from '../../src/chain/parse.js';
import { decodeTransferCall, decodeTransferLog, TRANSFER_TOPIC } from '../../src/chain/trc20.js';
import { decodeRawData, recoverSigner, txIdOf } from '../../src/chain/tx-codec.js';

// Public data kept in the repository (SOURCES.md there says where each file comes from).
const DIR = path.resolve(import.meta.dirname, '../fixtures/tron');
const ACCOUNT = 'TL24LCps5FKwp3PoU1MvrYrwhi5LU1tHre';

const load = (f: string): any => JSON.parse(readFileSync(`${DIR}/${f}`, 'utf8'));

const pages = load('ledger-live/fetchTronAccountTxs.fixture.json')[ACCOUNT];
const accountTxs: any[] = Object.values(pages).flatMap((p: any) => p.data);
const trc20: any[] = load('ledger-live/fetchTronAccountTxsTrc20.fixture.json')[ACCOUNT].data;
const infos: Record<string, any> = load('ledger-live/getTransactionInfoById.fixture.json');
const signed = [...accountTxs, ...trc20.map((t) => t.detail)].filter((t) => t.signature?.length);

describe('mainnet fixtures', () => {
  it('has the signed transactions SOURCES.md describes', () => {
    expect(accountTxs.length).toBe(105);
    expect(signed.length).toBeGreaterThanOrEqual(119);
  });

  it('txID is sha256(raw_data_hex) for every signed transaction', () => {
    for (const tx of signed) expect(txIdOf(tx.raw_data_hex)).toBe(tx.txID);
  });

  it('every signature recovers to owner_address', () => {
    for (const tx of signed) {
      const owner = tx.raw_data.contract[0].parameter.value.owner_address;
      expect(recoverSigner(tx.txID, tx.signature[0])).toBe(owner);
    }
  });

  it('a tampered txID or signature does not recover to the owner', () => {
    const tx = signed[0];
    const owner = tx.raw_data.contract[0].parameter.value.owner_address;
    const otherId = txIdOf(`${tx.raw_data_hex}00`);
    expect(recoverSigner(otherId, tx.signature[0])).not.toBe(owner);
    expect(recoverSigner(tx.txID, 'ab'.repeat(65))).not.toBe(owner);
  });

  it('decodes raw_data_hex into the raw_data the node printed', () => {
    for (const tx of signed) {
      const decoded = decodeRawData(tx.raw_data_hex);
      const raw = tx.raw_data;
      expect(decoded.ref_block_bytes).toBe(raw.ref_block_bytes);
      expect(decoded.ref_block_hash).toBe(raw.ref_block_hash);
      expect(decoded.expiration).toBe(raw.expiration);
      expect(decoded.fee_limit).toBe(raw.fee_limit);
      const c = decoded.contract[0]!;
      expect(c.type).toBe(raw.contract[0].type);
      if (c.type === 'TransferContract' || c.type === 'TriggerSmartContract')
        expect(c.parameter.value).toEqual(raw.contract[0].parameter.value);
    }
  });

  it('USDT Transfer logs decode to the sender, recipient and amount of the call', () => {
    let checked = 0;
    for (const tx of signed) {
      const info = infos[tx.txID];
      const value = tx.raw_data.contract[0].parameter.value;
      if (
        !info ||
        value.contract_address !== '41a614f803b6fd780986a42c78ec9c7f77e6ded13c' ||
        info.receipt?.result !== 'SUCCESS'
      )
        continue;
      const call = decodeTransferCall(value.data);
      const parsed = parseInfo(info);
      const event = decodeTransferLog(parsed.logs[0]!);
      expect(parsed.logs[0]!.topics[0]).toBe(TRANSFER_TOPIC);
      expect(event).toEqual({
        contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
        from: fromHexAddress(value.owner_address),
        to: fromHexAddress(call!.to),
        amount: call!.amount,
      });
      checked += 1;
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('the first TRC20 fixture entry: 130,285 energy to a new holder and calldata with 41 in the high bytes', () => {
    const entry = trc20[0];
    const call = decodeTransferCall(entry.detail.raw_data.contract[0].parameter.value.data)!;
    expect(fromHexAddress(call.to)).toBe(entry.to);
    expect(call.amount).toBe(BigInt(entry.value));
    const info = parseInfo(infos[entry.transaction_id]);
    expect(info.energyUsageTotal).toBe(130_285n);
    expect(info.receiptResult).toBe('SUCCESS');
  });

  it('a failed transaction parses as FAILED with its message', () => {
    const failed = Object.values(infos)
      .map(parseInfo)
      .filter((i) => i.result === 'FAILED');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed[0]!.receiptResult).toBe('OUT_OF_ENERGY');
    expect(failed[0]!.message).toBeTruthy();
  });

  it('parses fixture transactions into typed records', () => {
    const trx = accountTxs.map(parseTx).find((t) => t.contractType === 'TransferContract')!;
    expect(trx.owner).toMatch(/^T/);
    expect(typeof trx.amount).toBe('bigint');
  });

  it('the Nile triggersmartcontract capture has txID = sha256(raw_data_hex)', () => {
    const nile = load('nile-examples/triggersmartcontract.response.json');
    expect(txIdOf(nile.transaction.raw_data_hex)).toBe(nile.transaction.txID);
    const decoded = decodeRawData(nile.transaction.raw_data_hex);
    expect(decoded.fee_limit).toBe(100_000_000);
    expect(decodeTransferCall(String(decoded.contract[0]!.parameter.value.data))!.amount).toBe(100n);
  });
});

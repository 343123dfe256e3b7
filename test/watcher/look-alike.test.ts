/**
 * An address that shares a deposit address's first 6 bytes after `41` (a look-alike anyone can
 * make of a published address) is not that deposit address. Paid in the same block as the real
 * address, with the real app, watcher and devnet, the look-alike must credit nothing and the
 * deposit address must be credited.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromHexAddress, toHexAddress } from '../../src/chain/address.js';
import { startChainApp, UNITS, type ChainTestApp } from './fixture.js';

let t: ChainTestApp;
let shop: { id: string; key: string };

beforeAll(async () => {
  t = await startChainApp();
  shop = await t.shop();
  await t.synced();
});
afterAll(() => t.close());

/** Another address whose 6 bytes after `41` are those of `address`; the other 14 differ. */
function lookAlike(address: string): string {
  const hex = toHexAddress(address);
  let tail = randomBytes(14).toString('hex');
  while (tail === hex.slice(14)) tail = randomBytes(14).toString('hex');
  return fromHexAddress(`${hex.slice(0, 14)}${tail}`);
}

describe('a look-alike address sharing the start of a deposit address', () => {
  it('is paid tokens and TRX in the same block as the deposit address: only the deposit address is credited', async () => {
    const inv = await t.create(shop.key, { amount: '10' });
    const twin = lookAlike(inv.address);
    expect(toHexAddress(twin).slice(0, 14)).toBe(toHexAddress(inv.address).slice(0, 14));
    await t.pay(twin, '10');
    await t.pay(twin, 3n * UNITS, 'TRX_TRON', 1);
    const real = await t.pay(inv.address, '10', 'USDT_TRON', 2);
    await t.mine(20);
    const got = await t.invoice(shop.key, inv.invoice_id);
    expect(got).toMatchObject({ status: 'settled', amount_received: '10', amount_credited: '10' });
    expect(got.deposits.map((d: { tx_hash: string }) => d.tx_hash)).toEqual([real]);
    const db = t.app.services.db;
    expect(await db.selectFrom('deposits').select('address').where('address', '=', twin).execute()).toEqual([]);
    expect(await t.balanceOf(shop.id)).toBe(10n * UNITS);
    expect(await t.balanceOf(shop.id, 'TRX_TRON')).toBe(0n);
    await t.check(true);
  });
});

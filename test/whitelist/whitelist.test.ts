/** The payout whitelist: checksums, delay before first use (ManualClock), removal, audit. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/assets/catalog.js';
import { listAudit } from '../../src/audit/store.js';
import { ManualClock } from '../../src/clock.js';
import type { Database } from '../../src/db/database.js';
import { createMerchant } from '../../src/merchants/service.js';
import { formatDuration, parseDuration } from '../../src/whitelist/duration.js';
import { addToWhitelist, assertWhitelisted, listWhitelist, removeFromWhitelist } from '../../src/whitelist/service.js';
import { newAddress, openTempDb } from '../payouts/fixture.js';

const DAY = 86_400_000;

describe('durations', () => {
  it('parses 500ms, 30s, 15m, 24h, 7d and plain seconds', () => {
    expect(parseDuration('500ms', DAY)).toBe(500);
    expect(parseDuration('30s', DAY)).toBe(30_000);
    expect(parseDuration('15m', DAY)).toBe(900_000);
    expect(parseDuration('24h', DAY)).toBe(DAY);
    expect(parseDuration('7d', 7 * DAY)).toBe(7 * DAY);
    expect(parseDuration('90', DAY)).toBe(90_000);
    expect(parseDuration('0', DAY)).toBe(0);
  });

  it('refuses anything else and values above the maximum', () => {
    for (const bad of ['', '1.5h', '-1s', '1w', 'h', '24 h', '1e3', '10sec'])
      expect(() => parseDuration(bad, DAY), bad).toThrow(/duration/);
    expect(() => parseDuration('2d', DAY)).toThrow(/at most 1d/);
  });

  it('prints the largest exact unit', () => {
    expect(formatDuration(DAY)).toBe('1d');
    expect(formatDuration(90_000)).toBe('90s');
    expect(formatDuration(1500)).toBe('1500ms');
    expect(formatDuration(0)).toBe('0ms');
  });
});

describe('whitelist', () => {
  let h: Awaited<ReturnType<typeof openTempDb>>;
  let database: Database;
  const clock = new ManualClock('2026-03-01T10:00:00.000Z');
  const catalog = loadCatalog('devnet');
  const merchant = async () => (await createMerchant(database.db, clock, 'test', { name: 'W' })).merchant_id;
  const add = (m: string, address: string, delay?: string, asset = 'USDT_TRON') =>
    addToWhitelist(database.db, clock, 'cli:op', catalog, m, {
      asset,
      address,
      ...(delay === undefined ? {} : { delay }),
    });
  const check = (m: string, address: string, asset = 'USDT_TRON') =>
    assertWhitelisted(database.db, m, asset, address, clock.now());

  beforeAll(async () => {
    h = await openTempDb();
    database = h.database;
  });
  afterAll(() => h.close());

  it('makes an entry usable exactly when its delay has passed; default delay 24h', async () => {
    const m = await merchant();
    const a = newAddress();
    const { entry, created } = await add(m, a);
    expect(created).toBe(true);
    expect(entry).toMatchObject({
      merchant_id: m,
      asset: 'USDT_TRON',
      address: a,
      usable: false,
      created_by: 'cli:op',
    });
    expect(Date.parse(entry.usable_from) - clock.now().getTime()).toBe(DAY);
    await expect(check(m, a)).rejects.toMatchObject({
      code: 'address_not_whitelisted',
      message: expect.stringMatching(/delay before first use has not passed; usable from/),
    });
    clock.advance(DAY - 1);
    await expect(check(m, a)).rejects.toMatchObject({ code: 'address_not_whitelisted' });
    clock.advance(1);
    await expect(check(m, a)).resolves.toMatchObject({ address: a });
    expect((await listWhitelist(database.db, clock, { merchantId: m }))[0]!.usable).toBe(true);
  });

  it('honours --delay in every unit', async () => {
    const m = await merchant();
    for (const [delay, ms] of [
      ['500ms', 500],
      ['30s', 30_000],
      ['15m', 900_000],
      ['2h', 7_200_000],
      ['7d', 7 * DAY],
      ['45', 45_000],
    ] as const) {
      const { entry } = await add(m, newAddress(), delay);
      expect(Date.parse(entry.usable_from) - clock.now().getTime(), delay).toBe(ms);
    }
  });

  it('tells an absent address from one in its delay', async () => {
    const m = await merchant();
    await expect(check(m, newAddress())).rejects.toMatchObject({
      code: 'address_not_whitelisted',
      message: expect.stringMatching(/is not on the whitelist for USDT_TRON/),
    });
  });

  it('is per merchant and per asset', async () => {
    const m = await merchant();
    const other = await merchant();
    const a = newAddress();
    await add(m, a, '0');
    await expect(check(m, a)).resolves.toBeTruthy();
    await expect(check(other, a)).rejects.toMatchObject({ code: 'address_not_whitelisted' });
    await expect(check(m, a, 'TRX_TRON')).rejects.toMatchObject({ code: 'address_not_whitelisted' });
  });

  it('validates TRON checksums and the asset when adding', async () => {
    const m = await merchant();
    const good = newAddress();
    const flipped = good.slice(0, -1) + (good.endsWith('a') ? 'b' : 'a');
    for (const address of [flipped, 'not-an-address', '41' + 'a'.repeat(40), good.toLowerCase()]) {
      await expect(add(m, address), address).rejects.toMatchObject({ code: 'invalid_argument' });
    }
    await expect(add(m, good, '0', 'FOO_TRON')).rejects.toMatchObject({ code: 'asset_not_found' });
    await expect(add(m, good, '0', 'USDD_TRON')).rejects.toMatchObject({ code: 'asset_not_payable' });
    await expect(add(m, good, '3h30m')).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(add(m, good, '91d')).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(
      addToWhitelist(database.db, clock, 'op', catalog, '00000000-0000-4000-8000-000000000000', {
        asset: 'USDT_TRON',
        address: good,
      }),
    ).rejects.toMatchObject({
      code: 'merchant_not_found',
    });
    expect(await listWhitelist(database.db, clock, { merchantId: m })).toEqual([]);
  });

  it('adding an address already listed: the same or no delay keeps it; a shorter one is refused and changes nothing', async () => {
    const m = await merchant();
    const a = newAddress();
    const first = await add(m, a, '7d');
    clock.advance(DAY);
    for (const delay of [undefined, '7d']) {
      const again = await add(m, a, delay);
      expect(again).toMatchObject({ created: false, delay_extended: false });
      expect(again.entry).toEqual({ ...first.entry, usable: false });
    }
    await expect(add(m, a, '0')).rejects.toMatchObject({
      code: 'invalid_state',
      message: expect.stringContaining('remove the entry and add it again'),
    });
    await expect(add(m, a, '6d')).rejects.toMatchObject({ code: 'invalid_state' });
    expect((await listWhitelist(database.db, clock, { merchantId: m }))[0]?.usable_from).toBe(first.entry.usable_from);
    await expect(check(m, a)).rejects.toMatchObject({ code: 'address_not_whitelisted' });
  });

  it('a longer delay lengthens the entry, counted from when it was added, audited; repeating it changes nothing more', async () => {
    const m = await merchant();
    const a = newAddress();
    const first = await add(m, a, '24h');
    clock.advance(2 * DAY); // usable by now
    await check(m, a);
    const longer = await add(m, a, '72h');
    expect(longer).toMatchObject({ created: false, delay_extended: true });
    expect(longer.entry.usable_from).toBe(new Date(Date.parse(first.entry.created_at) + 3 * DAY).toISOString());
    expect(longer.entry.usable).toBe(false);
    await expect(check(m, a)).rejects.toMatchObject({ code: 'address_not_whitelisted' });
    expect(await add(m, a, '72h')).toMatchObject({ delay_extended: false, entry: longer.entry });
    const trail = await listAudit(database.db, 'whitelist_entry', first.entry.entry_id);
    expect(trail.map((e) => e.action)).toEqual(['whitelist.add', 'whitelist.delay_extended']);
    clock.advance(DAY);
    await check(m, a);
  });

  it('removal stops new use; re-adding starts a new delay; each action is audited', async () => {
    const m = await merchant();
    const a = newAddress();
    const { entry } = await add(m, a, '0');
    await expect(check(m, a)).resolves.toBeTruthy();
    const removed = await removeFromWhitelist(database.db, clock, 'cli:op2', catalog, m, {
      asset: 'USDT_TRON',
      address: a,
    });
    expect(removed).toMatchObject({ entry_id: entry.entry_id, removed_by: 'cli:op2', usable: false });
    await expect(check(m, a)).rejects.toMatchObject({ code: 'address_not_whitelisted' });
    await expect(
      removeFromWhitelist(database.db, clock, 'op', catalog, m, { asset: 'USDT_TRON', address: a }),
    ).rejects.toMatchObject({ code: 'address_not_whitelisted' });
    const readded = await add(m, a, '1h');
    expect(readded.created).toBe(true);
    await expect(check(m, a)).rejects.toMatchObject({ code: 'address_not_whitelisted' });
    expect(await listWhitelist(database.db, clock, { merchantId: m })).toHaveLength(1);
    expect(await listWhitelist(database.db, clock, { merchantId: m, includeRemoved: true })).toHaveLength(2);
    const trail = await listAudit(database.db, 'whitelist_entry', entry.entry_id);
    expect(trail.map((x) => [x.action, x.actor])).toEqual([
      ['whitelist.add', 'cli:op'],
      ['whitelist.remove', 'cli:op2'],
    ]);
    expect(JSON.parse(trail[0]!.details)).toMatchObject({ asset: 'USDT_TRON', address: a, delay: '0ms' });
  });
});

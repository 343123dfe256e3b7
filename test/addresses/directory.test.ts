/**
 * Finding deposit addresses by their text without an index on it (migration 0041): `serve`'s
 * in-memory directory of prefixes → derivation indexes, and the CLI's scan, give the same answers,
 * including for two addresses that share a 48-bit prefix and for a look-alike of one.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DepositAddressDirectory } from '../../src/addresses/directory.js';
import { findDepositAddresses, isOwnAddress } from '../../src/addresses/store.js';
import { fromHexAddress } from '../../src/chain/address.js';
import { openDatabase, writeTx, type Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { tempDir } from '../helpers/app.js';

const AT = '2026-01-01T00:00:00.000Z';
const PREFIX = '41' + 'a1b2c3d4e5f6';
/** Three addresses sharing one 48-bit prefix (two handed out, one not), and an unrelated one. */
const SHARED = fromHexAddress(PREFIX + '11'.repeat(14));
const SHARED_TOO = fromHexAddress(PREFIX + '22'.repeat(14));
const LOOK_ALIKE = fromHexAddress(PREFIX + '33'.repeat(14));
const OTHER = fromHexAddress('41' + '0f'.repeat(20));
const LATER = fromHexAddress('41' + '5e'.repeat(20));
const HOT = fromHexAddress('41' + '7d'.repeat(20));
const REPAIRED = fromHexAddress('41' + '6c'.repeat(20));

describe('deposit addresses by their text', () => {
  let database: Database;
  let file: string;
  const insert = (address: string, index: number) =>
    database.sqlite.prepare('insert into deposit_addresses (address, derivation_index, merchant_id, external_user_id, created_at) values (?, ?, ?, null, ?)').run(address, index, 'm', AT);

  beforeEach(async () => {
    file = path.join(tempDir(), 'directory.db');
    database = openDatabase(file);
    await migrateToLatest(database.db);
    // Rows of these tables only: the merchant is not what is tested.
    database.sqlite.pragma('foreign_keys = OFF');
    database.sqlite
      .prepare("insert into wallet (id, deposit_xpub, deposit_path, hot_address, hot_path, next_index, created_at) values (1, 'xpub', 'm/0', ?, 'm/1', 10, ?)")
      .run(HOT, AT);
    insert(SHARED, 4);
    insert(OTHER, 5);
    insert(SHARED_TOO, 7);
  });
  afterEach(() => database.close());

  const directoryOf = () => new DepositAddressDirectory({ db: database.db, scans: database.scans, file, logger: pino({ level: 'silent' }) }, 2);
  const indexes = (rows: { derivation_index: number }[]) => rows.map((r) => r.derivation_index).sort((a, b) => a - b);

  it('finds each handed-out address, both of a shared prefix, and neither a look-alike nor a malformed text', async () => {
    const directory = directoryOf();
    const asked = [SHARED, SHARED_TOO, LOOK_ALIKE, OTHER, 'T-not-an-address', HOT, SHARED];
    expect(indexes(await directory.find(database.db, asked))).toEqual([4, 5, 7]);
    // The scan the CLI uses says the same.
    expect(indexes(await findDepositAddresses(database.db, asked))).toEqual([4, 5, 7]);
    expect(await directory.find(database.db, [LOOK_ALIKE])).toEqual([]);
    expect((await directory.find(database.db, [SHARED_TOO]))[0]).toMatchObject({ address: SHARED_TOO, derivation_index: 7, merchant_id: 'm' });
  });

  it('finds an address handed out after its first load, and concurrent refreshes add each once', async () => {
    const directory = directoryOf();
    expect(await directory.find(database.db, [LATER])).toEqual([]);
    insert(LATER, 9);
    await Promise.all([directory.refresh(), directory.refresh(), directory.find(database.db, [OTHER])]);
    expect(indexes(await directory.find(database.db, [LATER, SHARED]))).toEqual([4, 9]);
    expect(directory.prefixes.size).toBe(4);
    expect(directory.hotAddress).toBe(HOT);
  });

  it('inside a write transaction, finds an address that transaction wrote (it catches up on the caller\'s connection)', async () => {
    const directory = directoryOf();
    await directory.refresh();
    const found = await writeTx(database.db, async (trx) => {
      await trx.insertInto('deposit_addresses').values({ address: LATER, derivation_index: 9, merchant_id: 'm', external_user_id: null, created_at: AT }).execute();
      return directory.find(trx, [LATER]);
    });
    expect(indexes(found)).toEqual([9]);
  });

  it('fails closed while a refresh fails, and after the cause is gone finds what was handed out meanwhile', async () => {
    const directory = directoryOf();
    await directory.refresh();
    // A row the refresh cannot decode (a damaged restore), then an address handed out after it.
    insert('T-corrupt', 8);
    insert(LATER, 9);
    // Not "not ours": a payout to LATER must not pass the check while the directory cannot catch up.
    await expect(directory.find(database.db, [LATER])).rejects.toThrow(/not a TRON address/);
    await expect(isOwnAddress(database.db, LATER, directory)).rejects.toThrow(/not a TRON address/);
    // Repaired: the next lookup catches up from where the failed one stopped (no refresh stays broken).
    database.sqlite.prepare('update deposit_addresses set address = ? where derivation_index = 8').run(REPAIRED);
    expect(indexes(await directory.find(database.db, [LATER, REPAIRED, SHARED]))).toEqual([4, 8, 9]);
    expect(await isOwnAddress(database.db, LATER, directory)).toBe(true);
  });

  it('finds more candidates than one read takes (500 indexes), each of ours once and none of the look-alikes', async () => {
    // 1,200 more addresses: three reads by primary key. Each asked with a look-alike sharing its
    // prefix (a candidate whose row does not match) and some twice.
    const many = Array.from({ length: 1_200 }, (_, i) => createHash('sha256').update(`many ${i}`).digest('hex').slice(0, 40));
    database.sqlite.transaction(() => many.forEach((hex, i) => insert(fromHexAddress('41' + hex), 100 + i)))();
    const asked = many.flatMap((hex, i) => [fromHexAddress('41' + hex), fromHexAddress('41' + hex.slice(0, 12) + '00'.repeat(14)), ...(i % 100 === 0 ? [fromHexAddress('41' + hex)] : [])]);
    const found = await directoryOf().find(database.db, asked);
    expect(found).toHaveLength(1_200);
    expect(indexes(found)).toEqual(many.map((_, i) => 100 + i));
    expect(found.every((r) => r.address === fromHexAddress('41' + many[r.derivation_index - 100]))).toBe(true);
  });

  it('says the same as the scan whether an address is the gateway\'s own', async () => {
    const directory = directoryOf();
    for (const [address, own] of [[SHARED, true], [SHARED_TOO, true], [HOT, true], [LOOK_ALIKE, false], [LATER, false], ['T-not-an-address', false]] as const) {
      expect(await isOwnAddress(database.db, address, directory), address).toBe(own);
      expect(await isOwnAddress(database.db, address), address).toBe(own);
    }
  });
});

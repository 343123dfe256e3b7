/**
 * The watch list's first load on a worker thread (watchlist-loader.ts): every deposit address of
 * the database is watched afterwards, look-alikes are not, and a corrupt row fails the load
 * loudly instead of leaving an address unwatched.
 */
import Sqlite from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromHexAddress } from '../../src/chain/address.js';
import { AddressPrefixes, prefixOfHex } from '../../src/workers/address-prefixes.js';
import { loadWatchlist } from '../../src/workers/watchlist-loader.js';
import { tempDir } from '../helpers/app.js';

function databaseWith(addresses: string[]): string {
  const file = path.join(tempDir(), 'watch.db');
  const db = new Sqlite(file);
  db.exec('create table deposit_addresses (address text primary key, derivation_index integer not null unique)');
  const insert = db.prepare('insert into deposit_addresses (address, derivation_index) values (?, ?)');
  db.transaction(() => addresses.forEach((a, i) => insert.run(a, i)))();
  db.close();
  return file;
}

describe('the watch list loader', () => {
  it('loads every address after the given index, as sorted distinct prefixes', async () => {
    const hexes = Array.from({ length: 5_000 }, () => `41${randomBytes(20).toString('hex')}`);
    const file = databaseWith(hexes.map(fromHexAddress));

    const all = await loadWatchlist(file, -1);
    expect(all.rows).toBe(5_000);
    expect(all.lastIndex).toBe(4_999);
    const set = new AddressPrefixes();
    set.load(all.prefixes);
    for (const hex of hexes) expect(set.has(prefixOfHex(hex) as number)).toBe(true);
    // A look-alike of nothing (random prefixes) is absent, and the array is strictly ascending.
    expect(set.has(prefixOfHex(`41${'00'.repeat(20)}`) as number)).toBe(hexes.some((h) => h.startsWith('41000000000000')));
    expect(all.prefixes.every((p, i) => i === 0 || p > (all.prefixes[i - 1] as number))).toBe(true);

    const rest = await loadWatchlist(file, 4_000);
    expect({ rows: rest.rows, lastIndex: rest.lastIndex, size: rest.prefixes.length }).toEqual({ rows: 999, lastIndex: 4_999, size: 999 });
    expect(await loadWatchlist(file, 4_999)).toMatchObject({ rows: 0, lastIndex: 4_999 });
    // load() takes only what the loader gives, and only into an empty set.
    expect(() => set.load(rest.prefixes)).toThrow(/empty set/);
    expect(() => new AddressPrefixes().load(Float64Array.of(5, 3))).toThrow(/sorted distinct/);
  });

  it('fails on a corrupt address rather than leave it unwatched', async () => {
    const good = fromHexAddress(`41${randomBytes(20).toString('hex')}`);
    const corrupt = good.slice(0, 33) + (good[33] === 'a' ? 'b' : 'a');
    const file = databaseWith([good, corrupt]);
    await expect(loadWatchlist(file, -1)).rejects.toThrow(`watch list load failed: not a TRON address: ${corrupt}`);
  });
});

/**
 * The watch list's first load on a worker thread (watchlist-loader.ts): every deposit address of
 * the database is watched afterwards with its derivation index, look-alikes are not, addresses
 * sharing a prefix are all kept, and a corrupt row fails the load loudly instead of leaving an
 * address unwatched.
 */
import Sqlite from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromHexAddress } from '../../src/chain/address.js';
import { AddressPrefixes, prefixOfHex } from '../../src/workers/address-prefixes.js';
import { loadWatchlist, type LoadedWatchlist } from '../../src/workers/watchlist-loader.js';
import { tempDir } from '../helpers/app.js';

const randomHex = () => `41${randomBytes(20).toString('hex')}`;

/** A database of (address, derivation index) rows, keyed by the index as deposit_addresses is (migration 0041). */
function databaseWith(rows: [string, number][]): string {
  const file = path.join(tempDir(), 'watch.db');
  const db = new Sqlite(file);
  db.exec('create table deposit_addresses (derivation_index integer primary key, address text not null)');
  const insert = db.prepare('insert into deposit_addresses (address, derivation_index) values (?, ?)');
  db.transaction(() => rows.forEach(([a, i]) => insert.run(a, i)))();
  db.close();
  return file;
}

/** The loaded pairs as "prefix:index" strings, in the order given. */
const pairsOf = (loaded: LoadedWatchlist) => Array.from(loaded.prefixes, (p, k) => `${p}:${loaded.indexes[k]}`);
const ascending = (a: Float64Array) => a.every((p, i) => i === 0 || p >= (a[i - 1] as number));

describe('the watch list loader', () => {
  it('loads every address after the given index, as (prefix, derivation index) pairs sorted by prefix', async () => {
    const hexes = Array.from({ length: 5_000 }, randomHex);
    // Indexes that are not the row's position (gaps, as after a failed allocation): the pairs must carry the index itself.
    const indexOf = (k: number) => 3 * k + 7;
    const file = databaseWith(hexes.map((h, k) => [fromHexAddress(h), indexOf(k)]));

    const all = await loadWatchlist(file, -1);
    expect(all.rows).toBe(5_000);
    expect(all.lastIndex).toBe(indexOf(4_999));
    expect(all.prefixes).toBeInstanceOf(Float64Array);
    expect(all.indexes).toBeInstanceOf(Uint32Array);
    expect(ascending(all.prefixes)).toBe(true);
    // Exactly the rows' pairs, each once: the prefix of each address with its own index.
    expect(pairsOf(all).sort()).toEqual(hexes.map((h, k) => `${prefixOfHex(h)}:${indexOf(k)}`).sort());

    const set = new AddressPrefixes();
    set.load(all.prefixes, all.indexes);
    hexes.forEach((hex, k) => expect(set.indexesOf(prefixOfHex(hex) as number)).toEqual([indexOf(k)]));
    // A look-alike of nothing (random prefixes) is absent.
    expect(set.has(prefixOfHex(`41${'00'.repeat(20)}`) as number)).toBe(hexes.some((h) => h.startsWith('41000000000000')));

    const rest = await loadWatchlist(file, indexOf(4_000));
    expect({ rows: rest.rows, lastIndex: rest.lastIndex, size: rest.prefixes.length, indexes: rest.indexes.length }).toEqual({ rows: 999, lastIndex: indexOf(4_999), size: 999, indexes: 999 });
    expect(pairsOf(rest).sort()).toEqual(hexes.slice(4_001).map((h, k) => `${prefixOfHex(h)}:${indexOf(k + 4_001)}`).sort());
    const none = await loadWatchlist(file, indexOf(4_999));
    expect({ rows: none.rows, lastIndex: none.lastIndex, size: none.prefixes.length, indexes: none.indexes.length }).toEqual({ rows: 0, lastIndex: indexOf(4_999), size: 0, indexes: 0 });
    // load() takes only what the loader gives, and only into an empty set.
    expect(() => set.load(rest.prefixes, rest.indexes)).toThrow(/empty set/);
  });

  it('keeps every address sharing a prefix, and sorts a crowded bucket (top 16 bits) as well as a sparse one', async () => {
    const shared = randomHex();
    const twins = [shared, `${shared.slice(0, 14)}${randomBytes(14).toString('hex')}`, `${shared.slice(0, 14)}${randomBytes(14).toString('hex')}`];
    // 300 addresses in one bucket (past the insertion sort's size), some of them sharing prefixes too.
    const crowded = Array.from({ length: 300 }, (_, k) => `41beef${(k % 250).toString(16).padStart(8, '0')}${randomBytes(14).toString('hex')}`);
    const hexes = [...twins, ...crowded, ...Array.from({ length: 500 }, randomHex)];
    // Rows inserted in derivation order, which is random in prefix order.
    const file = databaseWith(hexes.map((h, k) => [fromHexAddress(h), 1_000 + k]));

    const loaded = await loadWatchlist(file, -1);
    expect(loaded.rows).toBe(hexes.length);
    expect(ascending(loaded.prefixes)).toBe(true);
    expect(pairsOf(loaded).sort()).toEqual(hexes.map((h, k) => `${prefixOfHex(h)}:${1_000 + k}`).sort());

    const set = new AddressPrefixes(4);
    set.load(loaded.prefixes, loaded.indexes);
    expect(set.size).toBe(hexes.length);
    expect(set.indexesOf(prefixOfHex(shared) as number).sort()).toEqual([1_000, 1_001, 1_002]);
    expect(set.indexesOf(prefixOfHex(crowded[0] as string) as number).sort()).toEqual([1_003, 1_253]);
    // Added afterwards, one by one, as the watcher does with the rows handed out since.
    set.add(prefixOfHex(shared) as number, 9_000);
    set.add(prefixOfHex(shared) as number, 1_001);
    expect(set.indexesOf(prefixOfHex(shared) as number).sort()).toEqual([1_000, 1_001, 1_002, 9_000]);
  });

  it('fails on a corrupt address or a derivation index a Uint32Array cannot hold, rather than leave it unwatched', async () => {
    const good = fromHexAddress(randomHex());
    const corrupt = good.slice(0, 33) + (good[33] === 'a' ? 'b' : 'a');
    await expect(loadWatchlist(databaseWith([[good, 0], [corrupt, 1]]), -1)).rejects.toThrow(`watch list load failed: not a TRON address: ${corrupt}`);
    await expect(loadWatchlist(databaseWith([[good, 2 ** 32]]), -1)).rejects.toThrow(`watch list load failed: not a derivation index: ${2 ** 32}`);
  });
});

/**
 * Every deposit address handed out, in memory, as 48-bit prefixes → derivation indexes
 * (workers/address-prefixes.ts, ~8 bytes an address): the way `serve` finds deposit addresses by
 * their text. The table has no index on the address (migration 0041: a hash makes every creation
 * write a random leaf of it); a lookup here yields the candidate indexes, whose rows are read by
 * primary key and whose address text is compared. A prefix another address shares (by chance or
 * on purpose) costs one more row read, never a wrong answer.
 *
 * Addresses are only ever added, in derivation order: a refresh reads those after the last index
 * it saw (`> last` misses nothing: an index is taken inside the allocating write transaction and
 * SQLite commits one writer at a time, so a higher index is never visible before a lower one).
 * The first load, a million addresses on a big database, runs on a worker thread
 * (workers/watchlist-loader.ts).
 */
import type { Logger } from 'pino';
import { addressBytes } from '../chain/address.js';
import type { Db, Executor } from '../db/database.js';
import { AddressPrefixes, prefixOfBytes } from '../workers/address-prefixes.js';
import { loadWatchlist } from '../workers/watchlist-loader.js';
import { addressesAfter, depositAddressesAt, type DepositAddressRow } from './store.js';

/** Rows read per page after the first load (each page lets the event loop turn). */
const PAGE = 2_000;
/** Derivation indexes per `in (…)` read. */
const CHUNK = 500;

export interface DirectoryDeps {
  db: Db;
  /** The scans' connection (Database.scans), when there is one: refreshes read there. */
  scans?: Db;
  /** The database file, for the first load's worker thread. */
  file: string;
  logger: Logger;
}

export class DepositAddressDirectory {
  readonly prefixes: AddressPrefixes;
  /** The hot wallet's address as of the last refresh (the watcher tells its top-ups apart). */
  hotAddress: string | null = null;
  private lastIndex = -1;
  private loaded = false;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly d: DirectoryDeps, recentLimit?: number) {
    this.prefixes = new AddressPrefixes(recentLimit);
  }

  /** Takes in the addresses handed out since the last refresh; concurrent callers run one after the other. */
  refresh(reads?: Executor): Promise<void> {
    const run = this.queue.then(() => this.refreshNow(reads ?? this.d.scans ?? this.d.db));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * The deposit addresses among `addresses` (base58; a malformed one is none), as the database
   * holds them, after a refresh: what `db` reads is never older than what the caller committed.
   */
  async find(db: Executor, addresses: readonly string[]): Promise<DepositAddressRow[]> {
    // Caught up on the caller's own connection: inside a write transaction that is the writer it
    // holds, so it never waits for the scans' connection meanwhile.
    await this.refresh(db);
    const wanted = new Set<string>();
    const candidates = new Set<number>();
    for (const address of addresses) {
      const prefix = prefixOfAddress(address);
      const of = prefix === null ? [] : this.prefixes.indexesOf(prefix);
      if (of.length === 0 || wanted.has(address)) continue;
      wanted.add(address);
      for (const i of of) candidates.add(i);
    }
    const indexes = [...candidates];
    const found: DepositAddressRow[] = [];
    for (let i = 0; i < indexes.length; i += CHUNK) {
      for (const row of await depositAddressesAt(db, indexes.slice(i, i + CHUNK))) if (wanted.has(row.address)) found.push(row);
    }
    return found;
  }

  private async refreshNow(reads: Executor): Promise<void> {
    if (!this.loaded) {
      // Should the thread fail, the pages below load everything on the event loop (and fail the
      // same way on a corrupt address).
      try {
        const first = await loadWatchlist(this.d.file, this.lastIndex);
        this.prefixes.load(first.prefixes, first.indexes);
        this.lastIndex = first.lastIndex;
      } catch (err) {
        this.d.logger.warn({ err }, 'deposit address loader thread failed; loading on the event loop');
      }
      this.loaded = true;
    }
    for (;;) {
      const rows = await addressesAfter(reads, this.lastIndex, PAGE);
      for (const r of rows) {
        // A corrupt row throws: it must not pass unwatched.
        this.prefixes.add(prefixOfBytes(addressBytes(r.address)), r.derivation_index);
        this.lastIndex = r.derivation_index;
      }
      if (rows.length < PAGE) break;
      // A first load on the event loop takes seconds on a big database: the API answers between pages.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const wallet = await reads.selectFrom('wallet').select('hot_address').executeTakeFirst();
    this.hotAddress = wallet?.hot_address ?? null;
  }
}

/** The 48-bit prefix of a base58 address; null when it is not a valid one. */
function prefixOfAddress(address: string): number | null {
  try {
    return prefixOfBytes(addressBytes(address));
  } catch {
    return null;
  }
}

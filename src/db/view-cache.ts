/**
 * Answers of the hot point reads (GET /v1/invoices/{id}, GET /v1/payouts/{id}) kept serialized
 * until a row they were built from changes (issue 12: a read that finds its answer here skips the
 * SQLite lookup, the view and the serializer, about half of the request's server CPU).
 *
 * An answer is never older than the database at the moment the request looks it up:
 * - This process writes through one connection, the writer. TEMP triggers on it call
 *   `paygate_view_changed(view, key)` for every insert, update and delete of a source row, whatever
 *   code wrote it (a store function, raw SQL, a migration-free admin path): the entry goes at once.
 * - A change made inside an open write transaction is not yet visible to the reader connection: until
 *   the writer leaves that transaction the key stays `pending`, and no answer read meanwhile is kept.
 * - An answer is read in several steps (a row, then its deposits). It is kept only if nothing was
 *   invalidated while it was read, so it never mixes two states.
 * - Other processes (the CLI, a second `serve`): `PRAGMA data_version` on the writer moves when any
 *   other connection commits; when it has moved, every entry goes. Reading it begins a read
 *   transaction (locks on the WAL index and the file: fcntl calls) that cost ~19 µs in the server,
 *   as much as the rest of a kept answer; read before every answer it took 14 % of the CPU, once a
 *   millisecond still ~1.6 µs a request. It is read at most once per OTHERS_CHECK_MS: another
 *   process's commit is in every answer looked up 10 ms or more after it (a CLI command takes
 *   longer than that to exit after its commit; key revocations by the CLI take up to 100 ms).
 */
import { performance } from 'node:perf_hooks';
import type Sqlite from 'better-sqlite3';

/** A table whose rows a view is built from, and the column holding the view's key (its id). */
export interface ViewSource {
  table: string;
  key: string;
  /**
   * The key column is the row's own id (an invoice's id, not a deposit's invoice_id): an inserted row
   * is a new object, of which no answer can be kept yet, so inserts need no trigger (a creation
   * then pays no call into JavaScript and refuses no fill in flight).
   */
  ownId?: boolean;
}

/** Where a fill stands: the invalidation count when its read began, or null (it may not be kept). */
export type FillToken = number | null;

interface Entry {
  /** The merchant the answer belongs to: another merchant's lookup is a miss (then 404 from the database). */
  owner: string;
  body: string;
}

/** How stale a kept answer may be for another process's commit, in milliseconds. */
export const OTHERS_CHECK_MS = 10;

const FUNCTION = 'paygate_view_changed';
/** Connections with their ViewCaches: a second one would replace the SQL function the first relies on. */
const taken = new WeakSet<Sqlite.Database>();
const NAME = /^[a-z_]+$/;

/** The caches of one writer connection: the SQL function, the triggers, the shared counters. */
export class ViewCaches {
  private readonly caches = new Map<string, ViewCache>();
  private readonly triggers: string[] = [];
  /** Bumped by every invalidation: a fill whose read overlapped one is not kept. */
  private invalidations = 0;
  /** Keys changed inside the writer's open transaction (cleared once it is seen outside one). */
  private readonly pending = new Set<string>();
  private readonly dataVersion: Sqlite.Statement;
  private seenVersion: number;
  private readonly countTriggers: Sqlite.Statement;
  /** False from another connection's commit until the triggers are checked (checkOthers). */
  private verified = true;
  /** When data_version was last read (performance.now()). */
  private checkedAt = -Infinity;

  constructor(private readonly writer: Sqlite.Database) {
    if (taken.has(writer)) throw new Error('view cache: this connection has its ViewCaches already');
    taken.add(writer);
    // directOnly: a trigger or view stored in the database file cannot call it, only our TEMP triggers.
    writer.function(FUNCTION, { deterministic: false, directOnly: true, varargs: false }, (view: unknown, key: unknown) => {
      if (typeof view === 'string' && typeof key === 'string') this.changed(view, key);
      return null;
    });
    this.dataVersion = writer.prepare('pragma data_version').pluck();
    this.seenVersion = this.dataVersion.get() as number;
    this.countTriggers = writer.prepare("select count(*) from temp.sqlite_master where type = 'trigger' and name like 'paygate\\_view\\_%' escape '\\'").pluck();
  }

  /** A cache for the view `name`, built from `sources`, holding at most `capacity` answers. */
  create(name: string, sources: ViewSource[], capacity: number): ViewCache {
    if (!NAME.test(name) || this.caches.has(name)) throw new Error(`view cache: bad or repeated name ${name}`);
    const cache = new ViewCache(this, name, capacity);
    this.caches.set(name, cache);
    for (const s of sources) {
      if (!NAME.test(s.table) || !NAME.test(s.key)) throw new Error(`view cache: bad source ${s.table}.${s.key}`);
      const rows = { insert: ['new'], update: ['old', 'new'], delete: ['old'] } as const;
      for (const [event, which] of Object.entries(rows)) {
        if (event === 'insert' && s.ownId) continue;
        const trigger = `paygate_view_${name}_${s.table}_${event}`;
        const calls = which.map((w) => `${FUNCTION}('${name}', ${w}.${s.key})`).join(', ');
        this.triggers.push(`create temp trigger if not exists ${trigger} after ${event} on main.${s.table} begin select ${calls}; end`);
      }
    }
    for (const sql of this.triggers) this.writer.exec(sql);
    return cache;
  }

  /** Every trigger in place (a table rebuilt by another process could have taken its own). */
  private ensureTriggers(): void {
    const present = this.countTriggers.get() as number;
    if (present < this.triggers.length) for (const sql of this.triggers) this.writer.exec(sql);
  }

  private changed(view: string, key: string): void {
    this.invalidations++;
    this.caches.get(view)?.drop(key);
    if (this.writer.inTransaction) this.pending.add(`${view}\u0000${key}`);
  }

  /**
   * Drops every entry when another connection has committed since the last look. False while the
   * triggers could not be checked since then (the writer was inside a transaction: a trigger created
   * in it would go with a rollback): nothing is served or kept until they are.
   */
  checkOthers(): boolean {
    const now = performance.now();
    if (now - this.checkedAt < OTHERS_CHECK_MS && this.verified) return true;
    // Read before the time is noted: a read that throws (busy) leaves the next lookup to try again.
    const version = this.dataVersion.get() as number;
    this.checkedAt = now;
    if (version !== this.seenVersion) {
      this.seenVersion = version;
      this.invalidations++;
      for (const c of this.caches.values()) c.clear();
      this.verified = false;
    }
    if (!this.verified && !this.writer.inTransaction) {
      this.ensureTriggers();
      this.verified = true;
    }
    return this.verified;
  }

  begin(view: string, key: string): FillToken {
    if (!this.verified) return null;
    if (!this.writer.inTransaction) {
      this.pending.clear();
      return this.invalidations;
    }
    return this.pending.has(`${view}\u0000${key}`) ? null : this.invalidations;
  }

  mayKeep(token: FillToken): boolean {
    return token !== null && token === this.invalidations;
  }
}

export class ViewCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly shared: ViewCaches,
    readonly name: string,
    private readonly capacity: number,
  ) {}

  /** The kept answer of `key` for `owner`, after a look for other processes' commits. */
  lookup(key: string, owner: string): string | undefined {
    if (this.entries.size === 0) return undefined;
    try {
      if (!this.shared.checkOthers()) return undefined;
    } catch {
      // A busy or closing writer: answer from the database, which says what is wrong if anything is.
      return undefined;
    }
    const e = this.entries.get(key);
    return e !== undefined && e.owner === owner ? e.body : undefined;
  }

  /** Call before reading the rows of `key`; pass the token to fill() with the answer built from them. */
  begin(key: string): FillToken {
    return this.shared.begin(this.name, key);
  }

  fill(token: FillToken, key: string, owner: string, body: string): void {
    if (!this.shared.mayKeep(token)) return;
    this.entries.delete(key);
    // The oldest entry goes first (Map keeps insertion order): merchants poll recent objects.
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { owner, body });
  }

  get size(): number {
    return this.entries.size;
  }

  drop(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}

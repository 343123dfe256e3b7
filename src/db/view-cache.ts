/**
 * Answers of the hot point reads (GET /v1/invoices/{id}, GET /v1/payouts/{id}) kept serialized
 * until a row they were built from changes (issue 12: a read that finds its answer here skips the
 * SQLite lookup, the view and the serializer, about half of the request's server CPU).
 *
 * An answer is never older than this process's last commit, and at most OTHERS_CHECK_MS older
 * than another process's:
 * - This process writes through one connection, the writer. TEMP triggers on it call
 *   `paygate_view_changed(view, key)` for every insert, update and delete of a source row, whatever
 *   code wrote it (a store function, raw SQL, a path nobody wired): the entry goes at once.
 * - A change made inside an open write transaction is not yet visible to the reader connection: until
 *   the writer is seen outside a transaction the key stays `pending`, and no answer read meanwhile
 *   is kept. Past PENDING_LIMIT keys every key counts as pending (memory stays bounded when no
 *   read comes to clear them).
 * - An answer is read in several steps (a row, then its deposits). It is kept only if nothing was
 *   invalidated while it was read, so it never mixes two states.
 * - Other processes (the CLI, a second `serve`): `PRAGMA data_version` on the writer moves when any
 *   other connection commits; when it has moved, every entry goes. Reading it begins a read
 *   transaction (locks on the WAL index and the file: fcntl calls) that cost ~19 µs in the server,
 *   as much as the rest of a kept answer; read before every answer it took 14 % of the CPU, once a
 *   millisecond still ~1.6 µs a request. It is read at most once per OTHERS_CHECK_MS: another
 *   process's commit is in every answer looked up 10 ms or more after it (a CLI command takes
 *   longer than that to exit after its commit; key revocations by the CLI take up to 100 ms).
 *
 * The SQL function never throws: an exception there would fail the write that fired it (a payout's
 * status, a deposit). If anything goes wrong inside it, every answer is dropped and none is kept
 * until the writer is seen outside a transaction.
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
/** Keys remembered as changed inside open transactions; past this, every key counts as changed. */
export const PENDING_LIMIT = 10_000;
/** An answer longer than this is not kept (an invoice with thousands of dust deposits). */
export const MAX_KEPT_CHARS = 16 * 1024;
/** What an entry costs beyond its text (key, owner, map slot), counted against the byte budget. */
const ENTRY_OVERHEAD = 200;

const FUNCTION = 'paygate_view_changed';
/** Connections with their ViewCaches: a second one would replace the SQL function the first relies on. */
const taken = new WeakSet<Sqlite.Database>();
const NAME = /^[a-z_]+$/;
/** A key of `pending`: the view and its object's id. */
const pendingKey = (view: string, key: string) => `${view}\u0000${key}`;

/** The caches of one writer connection: the SQL function, the triggers, the shared counters. */
export class ViewCaches {
  private readonly caches = new Map<string, ViewCache>();
  private readonly triggers: string[] = [];
  /** Bumped by every invalidation: a fill whose read overlapped one is not kept. */
  private invalidations = 0;
  /** Keys changed inside the writer's open transaction (cleared once it is seen outside one). */
  private readonly pending = new Set<string>();
  /** Every key counts as pending until the writer is seen outside a transaction. */
  private allPending = false;
  private readonly dataVersion: Sqlite.Statement;
  private seenVersion: number;
  private readonly countTriggers: Sqlite.Statement;
  /** False from another connection's commit until the triggers are checked outside a transaction. */
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

  /** A cache for the view `name`, built from `sources`, holding answers up to `budgetChars` in all. */
  create(name: string, sources: ViewSource[], budgetChars: number): ViewCache {
    if (!NAME.test(name) || this.caches.has(name)) throw new Error(`view cache: bad or repeated name ${name}`);
    const cache = new ViewCache(this, name, budgetChars);
    this.caches.set(name, cache);
    const created: string[] = [];
    for (const s of sources) {
      if (!NAME.test(s.table) || !NAME.test(s.key)) throw new Error(`view cache: bad source ${s.table}.${s.key}`);
      const rows = { insert: ['new'], update: ['old', 'new'], delete: ['old'] } as const;
      for (const [event, which] of Object.entries(rows)) {
        if (event === 'insert' && s.ownId) continue;
        const trigger = `paygate_view_${name}_${s.table}_${event}`;
        const calls = which.map((w) => `${FUNCTION}('${name}', ${w}.${s.key})`).join(', ');
        created.push(`create temp trigger if not exists ${trigger} after ${event} on main.${s.table} begin select ${calls}; end`);
      }
    }
    for (const sql of created) this.writer.exec(sql);
    this.triggers.push(...created);
    return cache;
  }

  /** Keys remembered as changed in the open transaction (tests watch the bound). */
  get pendingSize(): number {
    return this.pending.size;
  }

  /** Called by the triggers, inside the statement that changed the row: must never throw. */
  private changed(view: string, key: string): void {
    try {
      this.invalidations++;
      this.caches.get(view)?.drop(key);
      if (!this.writer.inTransaction) {
        // An autocommit statement: every transaction before it has ended.
        this.settle();
      } else if (!this.allPending) {
        if (this.pending.size >= PENDING_LIMIT) {
          this.pending.clear();
          this.allPending = true;
        } else this.pending.add(pendingKey(view, key));
      }
    } catch {
      this.allPending = true;
      for (const c of this.caches.values()) c.clear();
    }
  }

  /** The writer is outside any transaction: what changed inside earlier ones is committed or gone. */
  private settle(): void {
    this.pending.clear();
    this.allPending = false;
  }

  /**
   * Drops every entry when another connection has committed since the last look (at most once per
   * OTHERS_CHECK_MS). False while the triggers could not be checked since (see verify).
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
    return this.verify();
  }

  /**
   * After another connection's commit, every trigger is checked (a table rebuilt by another process
   * could have taken its own) before anything is served or kept again; only outside a transaction,
   * where a trigger created would not go with a rollback.
   */
  private verify(): boolean {
    if (this.verified || this.writer.inTransaction) return this.verified;
    const present = this.countTriggers.get() as number;
    if (present < this.triggers.length) for (const sql of this.triggers) this.writer.exec(sql);
    this.verified = true;
    return true;
  }

  begin(view: string, key: string): FillToken {
    if (!this.writer.inTransaction) {
      this.settle();
      try {
        if (!this.verify()) return null;
      } catch {
        return null;
      }
      return this.invalidations;
    }
    if (!this.verified || this.allPending || this.pending.has(pendingKey(view, key))) return null;
    return this.invalidations;
  }

  mayKeep(token: FillToken): boolean {
    return token !== null && token === this.invalidations;
  }
}

export class ViewCache {
  private readonly entries = new Map<string, Entry>();
  private chars = 0;
  /** Lookups answered from memory, and lookups that went to the database (/metrics). */
  hits = 0;
  misses = 0;

  constructor(
    private readonly shared: ViewCaches,
    readonly name: string,
    private readonly budgetChars: number,
  ) {}

  /**
   * The kept answer of `key` for `owner`, after a look for other processes' commits. countMiss
   * false: a miss is not counted, since the route that reads the database looks up again.
   */
  lookup(key: string, owner: string, opts?: { countMiss: boolean }): string | undefined {
    const body = this.find(key, owner);
    if (body !== undefined) this.hits++;
    else if (opts?.countMiss !== false) this.misses++;
    return body;
  }

  private find(key: string, owner: string): string | undefined {
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
    if (!this.shared.mayKeep(token) || body.length > MAX_KEPT_CHARS) return;
    this.drop(key);
    this.entries.set(key, { owner, body });
    this.chars += body.length + ENTRY_OVERHEAD;
    // The oldest entries go first (Map keeps insertion order): merchants poll recent objects.
    for (const [oldest, e] of this.entries) {
      if (this.chars <= this.budgetChars) break;
      this.entries.delete(oldest);
      this.chars -= e.body.length + ENTRY_OVERHEAD;
    }
  }

  get size(): number {
    return this.entries.size;
  }

  drop(key: string): void {
    const e = this.entries.get(key);
    if (e === undefined) return;
    this.entries.delete(key);
    this.chars -= e.body.length + ENTRY_OVERHEAD;
  }

  clear(): void {
    this.entries.clear();
    this.chars = 0;
  }
}

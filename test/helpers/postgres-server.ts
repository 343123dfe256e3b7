/**
 * The PostgreSQL server the tests run on (`PAYGATE_TEST_POSTGRES_URL`) and the databases they
 * create there. Free of vitest, so that the run's global setup (postgres-setup.ts), the test files
 * (database.ts) and the scripts that start a test target share it.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The maintenance database of the test server; new databases are created through it. */
export const POSTGRES_ADMIN_URL =
  process.env.PAYGATE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** The URL of database `name` on the test server. */
export function postgresUrl(name: string): string {
  const u = new URL(POSTGRES_ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Runs `fn` with a connection to the test server's maintenance database. */
export async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  try {
    await client.connect();
  } catch (e) {
    throw new Error(
      `PostgreSQL is not reachable at ${POSTGRES_ADMIN_URL} (${(e as Error).message}): start it (.ci/run does) or set PAYGATE_TEST_POSTGRES_URL`,
    );
  }
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * `paygate_t_<pid>_<what><random>`: the process that created it is in the name, so that a later run
 * can tell a database left behind by a process that is gone from one a running test still uses.
 */
export function testDatabaseName(what = ''): string {
  return `paygate_t_${process.pid}_${what}${randomBytes(6).toString('hex')}`;
}

const NAME = /^paygate_t_(\d+)_/;

/** True while process `pid` runs on this machine (signal 0 only asks). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Drops the test databases of earlier runs that crashed (a worker killed before its exit handler
 * dropped what it created). Only those whose creating process no longer runs here and that nobody
 * is connected to: other test runs on this machine and server keep theirs. Returns the names.
 */
export async function dropLeftoverDatabases(): Promise<string[]> {
  return admin(async (c) => {
    const { rows } = await c.query<{ name: string; sessions: number }>(
      `select d.datname as name, (select count(*)::int from pg_stat_activity a where a.datid = d.oid) as sessions
         from pg_database d where d.datname like 'paygate\\_t\\_%'`,
    );
    const gone = rows.filter((r) => {
      const pid = NAME.exec(r.name)?.[1];
      return pid !== undefined && r.sessions === 0 && !running(Number(pid));
    });
    for (const r of gone) await c.query(`drop database if exists "${r.name}" with (force)`);
    return gone.map((r) => r.name);
  });
}

export interface TestPostgres {
  name: string;
  url: string;
  /**
   * Drops the database (its connections are ended). Never rejects: a drop that fails is left to the
   * exit handler below. Callers that need not wait for it (closing a test app) do not await it.
   */
  drop(): Promise<void>;
}

const created = new Set<string>();
// Databases a test left behind (a crash, a test that never closed its app, a drop still running)
// go when the process exits. 'exit' handlers must be synchronous: psql does it in a child process.
process.once('exit', () => {
  if (created.size === 0) return;
  const drops = [...created].map((name) => `drop database if exists "${name}" with (force);`).join('\n');
  spawnSync('psql', ['-q', '-v', 'ON_ERROR_STOP=0', POSTGRES_ADMIN_URL], {
    input: drops,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
});

async function newDatabase(template: string | undefined): Promise<TestPostgres> {
  const name = testDatabaseName();
  await admin((c) => c.query(`create database "${name}"${template ? ` template "${template}"` : ''}`));
  created.add(name);
  let dropping: Promise<void> | null = null;
  return {
    name,
    url: postgresUrl(name),
    drop() {
      dropping ??= admin((c) => c.query(`drop database if exists "${name}" with (force)`)).then(
        () => void created.delete(name),
        () => undefined,
      );
      return dropping;
    },
  };
}

/** The next database, created while the test that asked for the last one runs. */
let spare: { template: string | undefined; database: Promise<TestPostgres> } | null = null;
let asked = 0;

function makeSpare(template: string | undefined): void {
  const next = newDatabase(template);
  next.catch(() => undefined); // asked for later, or dropped at exit
  spare = { template, database: next };
}

/**
 * Starts creating a copy of `template` now, for the first database the test file asks for: the run
 * on PostgreSQL calls it as each file starts (postgres-file-setup.ts), so that the copy is made
 * while the file's modules load.
 */
export function prepareTestDatabase(template: string): void {
  if (!spare) makeSpare(template);
}

/** Drops the database made ahead that nobody asked for (the end of a test file). */
export async function dropSpareDatabase(): Promise<void> {
  const taken = spare;
  spare = null;
  if (taken)
    await taken.database.then(
      (d) => d.drop(),
      () => undefined,
    );
}

/**
 * A new database on the test server: a copy of `template`, or empty. From a process's second one
 * on, the next is created ahead (a file that makes two usually makes more), so that a test waits
 * for none after the first.
 */
export async function createTestDatabase(template?: string): Promise<TestPostgres> {
  const taken = spare;
  spare = null;
  const ready = taken && taken.template === template ? taken.database : null;
  // One of another kind (empty or migrated) is not what is asked for now.
  if (taken && !ready)
    void taken.database.then(
      (d) => d.drop(),
      () => undefined,
    );
  // A spare that could not be made: this one is made now (and fails as it will).
  const database = await (ready?.catch(() => newDatabase(template)) ?? newDatabase(template));
  if (++asked >= 2) makeSpare(template);
  return database;
}

/**
 * Another process holding the write lock (a CLI command, a backup, a manual sqlite3 session) must
 * neither freeze the server nor fail a write that can wait: writes wait asynchronously, other
 * requests go on meanwhile, and past the deadline the answer is 503 service_unavailable.
 */
import Sqlite from 'better-sqlite3';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { recordAudit } from '../../src/audit/store.js';
import { systemClock } from '../../src/clock.js';
import { openSqlite, writeTx } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { api } from '../helpers/http.js';
import { startTestApp, tempDir, type TestApp } from '../helpers/app.js';
import { describeSqliteOnly } from '../helpers/database.js';

const audit = { actor: 'test', action: 'probe.write', subjectType: 'probe', subjectId: 'x' };

function holdLock(file: string): Sqlite.Database {
  const other = new Sqlite(file);
  other.exec('begin immediate');
  return other;
}

describeSqliteOnly(
  "SQLite's file lock and the driver's asynchronous busy wait; PostgreSQL locks rows, not the database",
)('a write lock held by another process', () => {
  let t: TestApp | null = null;
  afterEach(async () => {
    await t?.close();
    t = null;
  });

  it('makes a write wait without blocking the event loop, then succeed when released', async () => {
    const file = path.join(tempDir(), 'busy.db');
    const database = openSqlite(file);
    await migrateToLatest(database.db);
    const other = holdLock(file);
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 5);
    const write = writeTx(database.db, (trx) => recordAudit(trx, systemClock, audit));
    await new Promise((r) => setTimeout(r, 200));
    const ticksWhileLocked = ticks;
    other.exec('commit');
    other.close();
    await write;
    clearInterval(ticker);
    expect(ticksWhileLocked).toBeGreaterThan(0);
    const rows = database.sqlite.prepare("select count(*) as n from audit_log where action = 'probe.write'").get() as {
      n: number;
    };
    expect(rows.n).toBe(1);
    await database.close();
  });

  it('answers 503 service_unavailable past the deadline while other requests are served', async () => {
    t = await startTestApp({
      busy: { deadlineMs: 300, pauseMs: 5, maxPauseMs: 50 },
      extraRoutes: async (app, s) => {
        app.post('/v1/probe-write', async () => {
          await writeTx(s.db, (trx) => recordAudit(trx, s.clock, audit));
          return { ok: true };
        });
      },
    });
    const { key } = await t.merchant();
    expect((await api(t.url, '/v1/probe-write', { key, body: {} })).status).toBe(200);
    const other = holdLock(t.app.config.databasePath!);
    try {
      const order: string[] = [];
      const write = api(t.url, '/v1/probe-write', { key, body: {} }).then((r) => (order.push('write'), r));
      const doc = api(t.url, '/v1/openapi.json').then((r) => (order.push('openapi'), r));
      const [w, d] = await Promise.all([write, doc]);
      expect(d.status).toBe(200);
      expect(order).toEqual(['openapi', 'write']);
      expect(w.status).toBe(503);
      expect(w.body.error.code).toBe('service_unavailable');
    } finally {
      other.exec('rollback');
      other.close();
    }
    expect((await api(t.url, '/v1/probe-write', { key, body: {} })).status).toBe(200);
  });
});

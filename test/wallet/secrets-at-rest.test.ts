/**
 * Secrets and files: the database, its WAL and shared-memory files are readable by
 * the owner only, and the deposit xpub is kept only where it is needed (never an audit subject).
 */
import { chmodSync, existsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { initWallet } from '../../src/wallet/service.js';
import { tempDir } from '../helpers/app.js';
import { CHEAP_SCRYPT, TEST_MNEMONIC, TEST_PASSPHRASE } from '../invoices/fixture.js';
import { describeSqliteOnly, openTestDatabase } from '../helpers/database.js';

const modeOf = (f: string) => statSync(f).mode & 0o777;

describeSqliteOnly("the SQLite file's own modes; PostgreSQL's files are the server's")('database files', () => {
  it('are created 0600 (database, WAL, SHM) whatever the umask', async () => {
    const file = path.join(tempDir(), 'fresh', 'paygate.db');
    const umask = process.umask(0o022);
    try {
      const database = openDatabase(file);
      await migrateToLatest(database.db);
      for (const f of [file, `${file}-wal`, `${file}-shm`]) {
        expect(existsSync(f), f).toBe(true);
        expect(modeOf(f), f).toBe(0o600);
      }
      await database.close();
    } finally {
      process.umask(umask);
    }
  });

  it('narrows a database created before the rule to 0600 when opened', async () => {
    const file = path.join(tempDir(), 'old.db');
    writeFileSync(file, '');
    chmodSync(file, 0o644);
    const database = openDatabase(file);
    await migrateToLatest(database.db);
    expect(modeOf(file)).toBe(0o600);
    expect(modeOf(`${file}-wal`)).toBe(0o600);
    await database.close();
  });
});

describe('the deposit xpub', () => {
  it('is never an audit subject or in audit details (restore, and restore again)', async () => {
    const dir = tempDir();
    const clock = new ManualClock('2026-03-01T10:00:00Z');
    const database = await openTestDatabase(path.join(dir, 'p.db'));
    await migrateToLatest(database.db);
    const config = parseConfig({
      DATABASE_URL: path.join(dir, 'p.db'),
      WALLET_KEYSTORE: path.join(dir, 'ks.json'),
      WALLET_PASSPHRASE: TEST_PASSPHRASE,
    });
    const r = await initWallet(database.db, clock, 'test', config, { mnemonic: TEST_MNEMONIC, scrypt: CHEAP_SCRYPT });
    const again = parseConfig({
      DATABASE_URL: path.join(dir, 'p.db'),
      WALLET_KEYSTORE: path.join(dir, 'ks2.json'),
      WALLET_PASSPHRASE: TEST_PASSPHRASE,
    });
    await initWallet(database.db, clock, 'test', again, { mnemonic: TEST_MNEMONIC, scrypt: CHEAP_SCRYPT });
    const audit = await database.db.selectFrom('audit_log').selectAll().execute();
    expect(audit.map((a) => a.action)).toEqual(['wallet.restore', 'wallet.restore']);
    expect(JSON.stringify(audit)).not.toContain(r.deposit_xpub);
    expect(audit.every((a) => a.subject_id === r.hot_address)).toBe(true);
    await database.close();
  });
});

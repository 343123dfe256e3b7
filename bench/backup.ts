/**
 * `paygate backup` throughput: a database of N audit rows (about 1 KiB each), backed up idle and
 * while another connection keeps committing small writes (as serve does). Prints MB/s and how
 * the online copy behaved (restarts fall back to one single-step copy). Usage: tsx bench/backup.ts [rows]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openSqlite } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { backupDatabase } from '../src/restore/backup.js';

const rows = Number(process.argv[2] ?? 100_000);
const dir = mkdtempSync(path.join(tmpdir(), 'paygate-bench-backup-'));
const file = path.join(dir, 'paygate.db');
try {
  const database = openSqlite(file);
  await migrateToLatest(database.db);
  const insert = database.sqlite.prepare(
    'insert into audit_log (at, actor, action, subject_type, subject_id, merchant_id, details) values (?, ?, ?, ?, ?, ?, ?)',
  );
  const fill = database.sqlite.transaction((n: number) => {
    for (let i = 0; i < n; i++)
      insert.run(
        new Date().toISOString(),
        'bench',
        'bench.fill',
        'row',
        String(i),
        null,
        JSON.stringify({ pad: 'x'.repeat(900) }),
      );
  });
  for (let done = 0; done < rows; done += 10_000) fill(Math.min(10_000, rows - done));
  database.sqlite.pragma('wal_checkpoint(TRUNCATE)');
  const mb = statSync(file).size / 1e6;

  const run = async (name: string, out: string) => {
    let steps = 0;
    const t0 = performance.now();
    const r = await backupDatabase(file, out, () => void steps++);
    const s = (performance.now() - t0) / 1000;
    console.log(
      `${name.padEnd(26)} ${mb.toFixed(1)} MB in ${s.toFixed(2)} s = ${(mb / s).toFixed(1)} MB/s (${r.pages} pages, ${steps} progress calls)`,
    );
  };
  await run('idle', path.join(dir, 'idle.db'));

  await database.close();
  // Another process writes as serve does (a small commit every 2 ms) while the backup runs.
  const script = `const S = require('better-sqlite3'); const db = new S(process.argv[1], { timeout: 10000 }); db.pragma('journal_mode = WAL');
    const ins = db.prepare("insert into audit_log (at, actor, action, subject_type, subject_id, merchant_id, details) values (?, 'bench', 'bench.write', 'row', 'w', null, '{}')");
    let n = 0; setInterval(() => { ins.run(new Date().toISOString()); n++; }, 2); process.on('SIGTERM', () => { console.log(n); process.exit(0); });`;
  const writer = spawn(process.execPath, ['-e', script, file], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  writer.stdout.on('data', (d) => (out += d));
  await new Promise((r) => setTimeout(r, 500));
  await run('under writes (other process)', path.join(dir, 'busy.db'));
  const ended = new Promise((r) => writer.once('exit', r));
  writer.kill('SIGTERM');
  await ended;
  console.log(`writes the other process committed (including 0.5 s before): ${out.trim()}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

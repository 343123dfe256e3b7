import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { check } from '../../scripts/check-table-owners.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A repository of the given files (path → source) in a fresh folder. */
function repo(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'table-owners-'));
  dirs.push(root);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

describe('the table owners check', () => {
  it('passes on this repository with the queries listed as still outside their owner', () => {
    const known = JSON.parse(readFileSync(path.join(ROOT, 'scripts/table-owners-known.json'), 'utf8')) as string[];
    const r = check(ROOT, known);
    expect(r.lines.join('\n')).not.toContain('new queries');
    expect(r.failed).toBe(false);
  });

  it('fails on a planted write of a table from outside its owner folder, and names it', () => {
    const root = repo({
      'src/payouts/store.ts': "export const f = (tx) => tx.updateTable('payouts').set({ status: 'x' }).execute();",
      'src/cabinet/summary.ts': "export const g = (tx) => tx.updateTable('payouts').set({ status: 'y' }).execute();",
    });
    const r = check(root, []);
    expect(r.failed).toBe(true);
    expect(r.found).toEqual(['src/cabinet/summary.ts: payouts (write)']);
  });

  it('fails on a foreign read outside a read model and on a raw sql write, not on a read model that only reads', () => {
    const root = repo({
      'src/cabinet/read-model.ts': "export const a = (db) => db.selectFrom('invoices').selectAll().execute();",
      'src/cabinet/payouts-read-model.ts':
        "export const b = (db) => db.selectFrom('payouts as p').innerJoin('deposits', 'x', 'y');",
      'src/reports/totals.ts': "export const c = (db) => db.selectFrom('ledger_entries').selectAll().execute();",
      'src/watcher/raw.ts': 'export const d = (db) => sql`UPDATE payouts SET status = ${1}`.execute(db);',
    });
    const r = check(root, []);
    expect(r.failed).toBe(true);
    expect(r.found).toEqual(['src/reports/totals.ts: ledger_entries (read)', 'src/watcher/raw.ts: payouts (write)']);
  });

  it('fails on a read model that writes', () => {
    const root = repo({
      'src/cabinet/read-model.ts':
        "export const a = (db) => db.selectFrom('invoices').selectAll().execute();\nexport const w = (tx) => tx.deleteFrom('invoices').execute();",
    });
    const r = check(root, []);
    expect(r.failed).toBe(true);
    expect(r.found).toEqual([
      'src/cabinet/read-model.ts: invoices (read)',
      'src/cabinet/read-model.ts: invoices (write)',
    ]);
  });
});

/**
 * `npm run check:tables`: each table is queried only by the folder that owns it (src/db/owners.ts).
 * A file outside the owner's folder fails the check when it writes the table, or reads it other
 * than as a read model (a file named `read-model.ts` or `*-read-model.ts`, which never writes).
 * dependency-cruiser sees imports, not kysely's table names, so this scans the source for them:
 * `selectFrom`, joins, `insertInto`, `updateTable`, `deleteFrom` with a table literal, and the
 * FROM/JOIN/INTO/UPDATE of raw `sql` templates. The queries still outside their owner are listed
 * in scripts/table-owners-known.json; a new one fails, one gone is reported (`--update` rewrites).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TABLE_OWNERS } from '../src/db/owners.js';

export interface Query {
  file: string;
  table: string;
  write: boolean;
}

const KYSELY =
  /\b(selectFrom|innerJoin|leftJoin|rightJoin|fullJoin|insertInto|updateTable|deleteFrom|mergeInto)\(\s*'([a-z_]+)/g;
const WRITES = new Set(['insertInto', 'updateTable', 'deleteFrom', 'mergeInto']);
const SQL_TEMPLATE = /\bsql(?:<[^`]*?>)?`([^`]*)`/g;
const RAW = /\b(from|join|into|update)\s+"?([a-z_]+)"?/gi;

/** The tables `text` queries, and whether it writes them. */
export function queriesOf(file: string, text: string, tables: ReadonlySet<string>): Query[] {
  const out: Query[] = [];
  for (const m of text.matchAll(KYSELY)) {
    if (tables.has(m[2]!)) out.push({ file, table: m[2]!, write: WRITES.has(m[1]!) });
  }
  for (const t of text.matchAll(SQL_TEMPLATE)) {
    for (const m of t[1]!.matchAll(RAW)) {
      const kw = m[1]!.toLowerCase();
      if (tables.has(m[2]!)) out.push({ file, table: m[2]!, write: kw === 'into' || kw === 'update' });
    }
  }
  return out;
}

/** `src/<folder>/…` → folder; a file directly in src/ → '(root)'. */
export function folderOf(file: string): string {
  const parts = file.split('/');
  return parts.length > 2 ? parts[1]! : '(root)';
}

export const isReadModel = (file: string) => /(^|\/)([a-z0-9-]+-)?read-model\.ts$/.test(file);

/** Every query of a file outside the owner folder that the rule refuses, as `file: table (read|write)`. */
export function violations(queries: Query[], owners: Readonly<Record<string, string>>): string[] {
  const out = new Set<string>();
  const readModelWrites = new Set(queries.filter((q) => q.write && isReadModel(q.file)).map((q) => q.file));
  for (const q of queries) {
    const owner = owners[q.table];
    if (owner === undefined) continue;
    if (folderOf(q.file) === owner) {
      if (readModelWrites.has(q.file) && q.write) out.add(`${q.file}: ${q.table} (a read model writes)`);
      continue;
    }
    if (q.write) out.add(`${q.file}: ${q.table} (write)`);
    else if (!isReadModel(q.file) || readModelWrites.has(q.file)) out.add(`${q.file}: ${q.table} (read)`);
  }
  return [...out].sort();
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'migrations' || e.name === 'postgres-baseline' ? [] : sourceFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/** The queries of every file under `root`/src (the schema's own folder, src/db, excluded). */
export function scan(root: string): Query[] {
  const tables = new Set(Object.keys(TABLE_OWNERS));
  return sourceFiles(join(root, 'src')).flatMap((p) => {
    const file = relative(root, p).split(sep).join('/');
    return file.startsWith('src/db/') ? [] : queriesOf(file, readFileSync(p, 'utf8'), tables);
  });
}

/** Runs the check on the repository at `root`; returns the lines to print and whether it failed. */
export function check(root: string, known: readonly string[]): { failed: boolean; found: string[]; lines: string[] } {
  const found = violations(scan(root), TABLE_OWNERS);
  const knownSet = new Set(known);
  const fresh = found.filter((v) => !knownSet.has(v));
  const gone = known.filter((v) => !found.includes(v));
  const files = new Set(found.map((v) => v.split(':')[0]));
  const lines = [`queries outside their owner: ${found.length} in ${files.size} files (known ${known.length})`];
  if (gone.length > 0) lines.push(`gone (run with --update to drop them):\n  ${gone.join('\n  ')}`);
  if (fresh.length > 0)
    lines.push(
      `new queries of a table outside its owner folder (src/db/owners.ts; call the owner's store, or read through a read model):\n  ${fresh.join('\n  ')}`,
    );
  return { failed: fresh.length > 0, found, lines };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(fileURLToPath(import.meta.url), '..', '..');
  const knownFile = join(root, 'scripts', 'table-owners-known.json');
  if (process.argv.includes('--update')) {
    writeFileSync(knownFile, JSON.stringify(check(root, []).found, null, 2) + '\n');
  }
  const r = check(root, JSON.parse(readFileSync(knownFile, 'utf8')) as string[]);
  for (const l of r.lines) (r.failed ? console.error : console.log)(l);
  if (r.failed) process.exit(1);
}

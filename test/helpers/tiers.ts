/**
 * The test tiers (vitest projects), decided by what a test file imports rather than by a list kept
 * by hand, so a new file lands in the right tier by itself:
 * - `soak`: test/soak (long runs under load);
 * - `slow`: files named `*.slow.test.ts` (exhaustive comparisons, minutes of CPU);
 * - `end-to-end`: the folders that start `serve`, the demo, nginx or sqlmap as processes;
 * - `browser`: files that drive Chromium (they reach playwright-core);
 * - `devnet`: files that reach the simulated TRON node (src/devnet);
 * - `unit`: files that reach no database, no child process and no devnet;
 * - `integration`: the rest (a real database, HTTP on loopback, the CLI in process).
 * `npm run test:fast` runs `unit` and `integration`. Imports are followed through every file they
 * reach at run time, dynamic imports included (TypeScript's own pre-processor reads them).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export const TIERS = ['unit', 'integration', 'devnet', 'browser', 'end-to-end', 'soak', 'slow'] as const;
export type Tier = (typeof TIERS)[number];

const ROOT = path.resolve(import.meta.dirname, '../..');

const END_TO_END_FOLDERS = ['test/e2e/', 'test/deploy/', 'test/replicas/', 'test/security/', 'test/readme/'];

/**
 * Modules (repository paths) and packages that open a database or start a child process: their
 * reach makes a file something other than a unit test.
 */
export const NOT_UNIT: ReadonlySet<string> = new Set([
  'src/db/database.ts',
  'test/helpers/database.ts',
  'test/helpers/postgres-server.ts',
  'test/helpers/app.ts',
  'test/helpers/cli.ts',
  'test/helpers/serve-child.ts',
  'better-sqlite3',
  'pg',
  'kysely',
  'node:child_process',
  'child_process',
]);

/** A relative import resolved to the repository file it names (`./x.js` is `./x.ts` here). */
export function resolveImport(from: string, specifier: string): string {
  const target = path.join(path.dirname(from), specifier);
  for (const candidate of [target, target.replace(/\.js$/, '.ts'), target.replace(/\.mjs$/, '.mts')]) {
    const full = path.join(ROOT, candidate);
    if (existsSync(full) && statSync(full).isFile()) return candidate;
  }
  throw new Error(`${from} imports ${specifier}, which is no file`);
}

const importsOf = new Map<string, string[]>();

/** The files and packages `file` imports directly (repository paths for relative imports). */
function directImports(file: string): string[] {
  let found = importsOf.get(file);
  if (!found) {
    // Type-only imports are gone at run time: they do not pull a database into a unit test.
    const source = readFileSync(path.join(ROOT, file), 'utf8').replace(/^(import|export) type [^;]+;/gm, '');
    found = ts
      .preProcessFile(source, true, true)
      .importedFiles.map(({ fileName }) => (fileName.startsWith('.') ? resolveImport(file, fileName) : fileName));
    importsOf.set(file, found);
  }
  return found;
}

/** Every file and package `file` reaches through its imports, itself included. */
export function reach(file: string): Set<string> {
  const seen = new Set<string>();
  const todo = [file];
  for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
    if (seen.has(next)) continue;
    seen.add(next);
    if (next.startsWith('src/') || next.startsWith('test/') || next.startsWith('scripts/'))
      todo.push(...directImports(next));
  }
  return seen;
}

export function tierOf(file: string): Tier {
  if (file.startsWith('test/soak/')) return 'soak';
  if (file.endsWith('.slow.test.ts')) return 'slow';
  if (END_TO_END_FOLDERS.some((folder) => file.startsWith(folder))) return 'end-to-end';
  const reached = [...reach(file)];
  if (reached.some((f) => f.startsWith('playwright'))) return 'browser';
  if (reached.some((f) => f.startsWith('src/devnet/'))) return 'devnet';
  if (reached.some((f) => NOT_UNIT.has(f))) return 'integration';
  return 'unit';
}

/** Every test file of the suite (repository paths), in a stable order. */
export function testFiles(dir = 'test'): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? testFiles(`${dir}/${e.name}`) : e.name.endsWith('.test.ts') ? [`${dir}/${e.name}`] : [],
    )
    .sort();
}

/** The test files of each tier. */
export function filesByTier(): Record<Tier, string[]> {
  const byTier = Object.fromEntries(TIERS.map((t) => [t, [] as string[]])) as Record<Tier, string[]>;
  for (const file of testFiles()) byTier[tierOf(file)].push(file);
  return byTier;
}

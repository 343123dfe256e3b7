/**
 * The files the run on PostgreSQL leaves out (test/helpers/engine-independent.ts) really cannot
 * touch a database: their imports, followed through every file they reach (type imports and
 * dynamic imports included), never reach a module that opens one or starts a process that would;
 * and those that run on PostgreSQL whatever the engine really never use the engine under test.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ENGINE_INDEPENDENT, POSTGRES_ALWAYS, SQLITE_RUN_ONLY } from '../helpers/engine-independent.js';
import { NOT_UNIT, resolveImport } from '../helpers/tiers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

// What a database or a child process is: the same modules that keep a file out of the unit tier.
const FORBIDDEN = NOT_UNIT;

/** The chain of imports from `file` to the first forbidden module it reaches, or null. */
function pathToForbidden(file: string, seen = new Set<string>()): string[] | null {
  if (seen.has(file)) return null;
  seen.add(file);
  const source = readFileSync(path.join(ROOT, file), 'utf8');
  for (const { fileName } of ts.preProcessFile(source, true, true).importedFiles) {
    const relative = fileName.startsWith('.');
    const target = relative ? resolveImport(file, fileName) : fileName;
    if (FORBIDDEN.has(target)) return [file, target];
    if (!relative) continue;
    const rest = pathToForbidden(target, seen);
    if (rest) return [file, ...rest];
  }
  return null;
}

describe('the test files run on SQLite only', () => {
  it('are test files of the suite, each listed once', () => {
    for (const file of SQLITE_RUN_ONLY) {
      expect(file).toMatch(/^test\/.+\.test\.ts$/);
      expect(existsSync(path.join(ROOT, file)), file).toBe(true);
    }
    expect(new Set(SQLITE_RUN_ONLY).size).toBe(SQLITE_RUN_ONLY.length);
  });

  it('never reach a database, a database helper or a child process through their imports', () => {
    const reached = ENGINE_INDEPENDENT.map((file) => ({ file, chain: pathToForbidden(file) }));
    expect(reached.filter((r) => r.chain !== null)).toEqual([]);
  });

  it('are told apart from files that do reach one', () => {
    expect(pathToForbidden('test/db/engines.test.ts')).not.toBeNull();
    expect(pathToForbidden('test/ledger/money-model.test.ts')?.at(-1)).toBe('src/db/database.ts');
    expect(pathToForbidden('test/unit/serve-module-graph.test.ts')).toEqual([
      'test/unit/serve-module-graph.test.ts',
      'node:child_process',
    ]);
  });
});

/** `file` and the files it imports from its own folder (a harness, a child script), as text. */
function ownFolderSources(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const source = readFileSync(path.join(ROOT, file), 'utf8');
  const local = ts
    .preProcessFile(source, true, true)
    .importedFiles.map((i) => i.fileName)
    .filter((f) => f.startsWith('./'))
    .map((f) => resolveImport(file, f));
  return [source, ...local.flatMap((f) => ownFolderSources(f, seen))];
}

/** What a file uses when it runs on the engine under test rather than on PostgreSQL of its own. */
const ENGINE_UNDER_TEST = /\b(ON_POSTGRES|TEST_ENGINE|openTestDatabase|testDatabaseUrl|startTestApp|startInvoiceApp)\b/;

describe('the test files that run on PostgreSQL whatever the engine', () => {
  it('make PostgreSQL databases of their own and never use the engine under test', () => {
    for (const file of POSTGRES_ALWAYS) {
      const sources = ownFolderSources(file).join('\n');
      expect(sources, file).toMatch(/\bcreatePostgresDatabase\(/);
      expect(ENGINE_UNDER_TEST.exec(sources)?.[0], file).toBeUndefined();
    }
  });

  it('are told apart from files that use the engine under test', () => {
    expect(
      ENGINE_UNDER_TEST.exec(ownFolderSources('test/invoices/concurrent-creations.test.ts').join('\n')),
    ).not.toBeNull();
    expect(ENGINE_UNDER_TEST.exec(ownFolderSources('test/operations/migrate-to.test.ts').join('\n'))).not.toBeNull();
  });
});

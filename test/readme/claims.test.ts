/**
 * What README.md and the documents it sends a newcomer to say about the program stays true: the
 * database engines and the DATABASE_URL forms (docs/configuration.md, docs/database.md) are the
 * ones the configuration accepts, each to the engine they say; every `paygate …` command README
 * names is a command of the CLI, and docs/cli.md's table of all commands lists every command and
 * nothing else; the two commands README starts with, `npm start` and `npm test`, are the
 * package.json scripts it describes; README stays under 200 lines.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const DATABASE_DOC = readFileSync(path.join(ROOT, 'docs/database.md'), 'utf8');
const CONFIGURATION_DOC = readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8');
const CLI_DOC = readFileSync(path.join(ROOT, 'docs/cli.md'), 'utf8');

/** The lines of `text` from the heading `title` to the next heading of that level. */
function section(text: string, title: string): string {
  const start = text.indexOf(`\n## ${title}\n`);
  expect(start, `section "${title}"`).toBeGreaterThanOrEqual(0);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

const codeSpans = (text: string) => [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);

/** The CLI's command ids, from the command files the build compiles (`merchant/create.ts`: "merchant create"). */
function commandIds(dir = path.join(ROOT, 'commands'), prefix: string[] = []): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.isDirectory()) return commandIds(path.join(dir, e.name), [...prefix, e.name]);
    if (!e.name.endsWith('.ts')) return [];
    const name = e.name.slice(0, -'.ts'.length);
    return [(name === 'index' ? prefix : [...prefix, name]).join(' ')];
  });
}
const COMMANDS = new Set(commandIds());
const TOPICS = new Set([...COMMANDS].flatMap((id) => id.split(' ').map((_, i, w) => w.slice(0, i).join(' '))));

/**
 * The command `words` start with (the rest are its arguments), or null. A topic followed by "…"
 * ("paygate owner …") names the topic's commands.
 */
function commandOf(words: readonly string[]): string | null {
  let id = '';
  for (const [i, word] of words.entries()) {
    const next = id === '' ? word : `${id} ${word}`;
    if (!COMMANDS.has(next) && !TOPICS.has(next)) return id !== '' && COMMANDS.has(id) ? id : null;
    id = next;
    if (words[i + 1] === '…' && TOPICS.has(id)) return id;
  }
  return COMMANDS.has(id) ? id : null;
}

/** `paygate <words>` in code spans and code blocks, each as its words up to the first that is no word. */
function namedCommands(text: string): string[][] {
  const code = [...codeSpans(text), ...[...text.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].map((m) => m[1]!)];
  return code.flatMap((c) =>
    [...c.matchAll(/\bpaygate ((?:[a-z][a-z0-9-]*|…)(?: (?:[a-z][a-z0-9-]*|…))*)/g)].map((m) => m[1]!.split(' ')),
  );
}

/** The commands of docs/cli.md's table: each row's code spans, alternatives (`a\|b`) expanded. */
function tableCommands(): string[][] {
  const rows = section(CLI_DOC, 'All commands')
    .split('\n')
    .filter((l) => l.startsWith('| `'));
  expect(rows.length).toBeGreaterThan(10);
  return rows.flatMap((row) =>
    codeSpans(row.split(' | ')[0]!).flatMap((span) => {
      const words = span.split(' ').filter((w) => /^[a-z][a-z0-9-]*(\\\|[a-z][a-z0-9-]*)*$/.test(w));
      const head = span.split(' ').slice(0, words.length);
      if (head.join(' ') !== words.join(' ')) return [words];
      return words.reduce<string[][]>(
        (all, w) => all.flatMap((prefix) => w.split('\\|').map((alt) => [...prefix, alt])),
        [[]],
      );
    }),
  );
}

describe("README's database engines", () => {
  it('SQLite by default and PostgreSQL, named where README introduces the program', () => {
    const intro = README.slice(0, README.indexOf('\n## '));
    expect(intro).toMatch(/SQLite file by default/);
    expect(intro).toMatch(/PostgreSQL/);
    expect(README).not.toMatch(/## Not built yet/);
    const byDefault = parseConfig({}).database;
    expect(byDefault).toEqual({ engine: 'sqlite', path: path.resolve('paygate.db') });
  });

  it('every DATABASE_URL form docs/configuration.md and docs/database.md give opens the engine they say', () => {
    const row = CONFIGURATION_DOC.split('\n').find((l) => l.startsWith('| `DATABASE_URL`'));
    expect(row).toBeDefined();
    const [sqliteCell, postgresCell] = row!.split(' | ')[2]!.split(' or PostgreSQL ');
    const docRows = section(DATABASE_DOC, 'Choosing the engine')
      .split('\n')
      .filter((l) => l.startsWith('| `'));
    const forms: [string, 'sqlite' | 'postgres'][] = [
      ...codeSpans(sqliteCell!).map((f) => [f, 'sqlite'] as [string, 'sqlite']),
      ...codeSpans(postgresCell!).map((f) => [f, 'postgres'] as [string, 'postgres']),
      ...docRows.flatMap((r) =>
        codeSpans(r.split(' | ')[0]!).map(
          (f) =>
            [f, /PostgreSQL|the same/.test(r.split(' | ')[1]!) ? 'postgres' : 'sqlite'] as [
              string,
              'sqlite' | 'postgres',
            ],
        ),
      ),
    ];
    expect(forms.map(([f]) => f)).toEqual(expect.arrayContaining(['sqlite:path', 'file:path', 'postgres://…']));
    expect(forms.some(([f]) => f.startsWith('postgresql://'))).toBe(true);
    for (const [form, engine] of forms) {
      const url = form
        .replace(/^(sqlite:|file:)path$/, '$1/tmp/paygate-readme.db')
        .replace(/(postgres(ql)?:\/\/)(?:user:password@host:5432\/paygate\?…|…)$/, '$1u:p@127.0.0.1:5432/paygate');
      expect(parseConfig({ DATABASE_URL: url }).database.engine, form).toBe(engine);
    }
    expect(new Set(forms.map(([, e]) => e))).toEqual(new Set(['sqlite', 'postgres']));
  });
});

describe("README's commands", () => {
  it('every `paygate …` README names is a command of the CLI', () => {
    const named = namedCommands(README);
    expect(named.length).toBeGreaterThan(10);
    const unknown = named.filter((words) => commandOf(words) === null).map((w) => `paygate ${w.join(' ')}`);
    expect(unknown).toEqual([]);
  });

  it("every command of docs/cli.md's table is a command of the CLI, and the table lists them all", () => {
    const listed = tableCommands();
    expect(listed.filter((words) => commandOf(words) === null).map((w) => w.join(' '))).toEqual([]);
    const covered = new Set(listed.map((words) => commandOf(words)));
    expect([...COMMANDS].filter((id) => !covered.has(id)).sort()).toEqual([]);
  });

  it('npm start builds and starts the demo; npm test runs the suite on SQLite', () => {
    const scripts = (
      JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    const two = section(README, 'Two commands');
    expect(two).toMatch(/npm install && npm start +# builds and starts a throwaway demo instance/);
    expect(two).toMatch(/npm ci && npm test +# the whole test suite on SQLite/);
    expect(scripts.start).toMatch(/^npm run build && node .*bin\/run\.js demo$/);
    expect(scripts.build).toBeDefined();
    // The suite's engine is SQLite unless PAYGATE_TEST_DATABASE says otherwise (docs/database.md).
    expect(scripts.test).toBe('vitest run');
    for (const [, name] of README.matchAll(/\bnpm run ([a-z:]+)/g))
      expect(scripts, `npm run ${name}`).toHaveProperty([name!]);
  });
});

describe("README's length", () => {
  it('stays under 200 lines: what it is, the two commands, a tour, links', () => {
    expect(README.split('\n').length).toBeLessThan(200);
  });
});

describe('installing', () => {
  it('README names every locked package whose engines want a newer Node than it promises; scarf telemetry is off', () => {
    const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { engines?: { node?: string } }>;
    };
    const promised = /Node\.js ≥ (\d+)\.(\d+)/.exec(README);
    expect(promised).not.toBeNull();
    const major = Number(promised![1]);
    const newer = Object.entries(lock.packages)
      .filter(([, p]) => {
        // Newer only when no alternative of the range (">=22 || >=20.19 <21") admits the promised major.
        const mins = (p.engines?.node ?? '').split('||').map((alt) => /^\s*>=\s*(\d+)/.exec(alt));
        return mins.length > 0 && mins.every((m) => m !== null && Number(m[1]) > major);
      })
      .map(([where]) => where.replace(/^.*node_modules\//, ''));
    for (const name of newer) expect(README, name).toContain(`\`${name}@`);
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scarfSettings?: { enabled?: boolean };
    };
    expect(pkg.scarfSettings?.enabled).toBe(false);
  });
});

/**
 * `paygate serve` must not load tronweb (nor the ethers inside it, ~51 MB of memory together)
 * unless it builds or signs a transaction. oclif imports every command module to list the commands
 * (there is no manifest file), so serve's module graph is src/app.ts plus all of commands/. A child
 * process imports them with loader hooks recording every resolved URL, and nothing may come from
 * tronweb or ethers; a control child importing tx-codec.ts shows the recorder does see tronweb.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const HOOKS = pathToFileURL(path.join(ROOT, 'test/helpers/record-imports.mjs')).href;
const HEAVY = /\/node_modules\/(tronweb|ethers)\//;
const dir = mkdtempSync(path.join(tmpdir(), 'paygate-graph-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function commandModules(folder = path.join(ROOT, 'commands')): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? commandModules(path.join(folder, e.name))
      : e.name.endsWith('.ts')
        ? [path.join(folder, e.name)]
        : [],
  );
}

/** Every URL resolved (ESM) or required (CommonJS) while a fresh process imports `modules`. */
async function modulesLoadedBy(name: string, modules: string[]): Promise<string[]> {
  const file = path.join(dir, `${name}.txt`);
  const script = `
import { createRequire, register } from 'node:module';
import { appendFileSync } from 'node:fs';
register(${JSON.stringify(HOOKS)}, { data: { file: ${JSON.stringify(file)} } });
for (const m of ${JSON.stringify(modules.map((m) => pathToFileURL(m).href))}) await import(m);
appendFileSync(${JSON.stringify(file)}, Object.keys(createRequire(import.meta.url).cache).join('\\n') + '\\n');
`;
  await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    timeout: 60_000,
  });
  return readFileSync(file, 'utf8').split('\n').filter(Boolean);
}

describe("serve's module graph", () => {
  it('loads neither tronweb nor ethers: src/app.ts and every command module', async () => {
    const commands = commandModules();
    expect(commands.map((c) => path.relative(ROOT, c))).toContain(path.join('commands', 'serve.ts'));
    const [loaded, control] = await Promise.all([
      modulesLoadedBy('serve', [path.join(ROOT, 'src/app.ts'), ...commands]),
      modulesLoadedBy('control', [path.join(ROOT, 'src/chain/tx-codec.ts')]),
    ]);
    // The recorder saw the whole graph: the app, the wallet's own derivation, the commands.
    expect(loaded).toContain(pathToFileURL(path.join(ROOT, 'src/wallet/hd.ts')).href);
    expect(loaded.some((u) => u.includes('/node_modules/@scure/bip32/'))).toBe(true);
    expect(loaded).toContain(pathToFileURL(path.join(ROOT, 'commands/demo.ts')).href);
    expect(loaded.filter((u) => HEAVY.test(u))).toEqual([]);
    expect(control.some((u) => u.includes('/node_modules/tronweb/'))).toBe(true);
  });
});

/**
 * A simple command starts without the server: the built `paygate merchant list` loads its own
 * command module only (oclif reads the others from the manifest the build writes), and none of
 * the modules only `serve` and the chain work need (fastify, tronweb, argon2, pg on SQLite).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';
import { runBuilt } from '../helpers/cli.js';
import { ON_POSTGRES } from '../helpers/database.js';

/** Records the URL of every module the process loads (ES modules through a hook, CommonJS through require). */
const TRACER_HOOKS = `
import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.PAYGATE_TEST_TRACE, url + '\\n');
  return next(url, context);
}
`;
const TRACER = `
import Module, { register } from 'node:module';
import { appendFileSync } from 'node:fs';
register(new URL('./hooks.mjs', import.meta.url));
const load = Module._load;
Module._load = function (request, parent, ...rest) {
  const loaded = load.call(this, request, parent, ...rest);
  if (!request.startsWith('node:')) appendFileSync(process.env.PAYGATE_TEST_TRACE, Module._resolveFilename(request, parent) + '\\n');
  return loaded;
};
`;

describe.skipIf(ON_POSTGRES)('the start of a simple command', () => {
  it('merchant list loads neither the other commands nor the server, chain or hashing modules', async () => {
    const dir = tempDir('paygate-startup-');
    writeFileSync(path.join(dir, 'hooks.mjs'), TRACER_HOOKS);
    writeFileSync(path.join(dir, 'tracer.mjs'), TRACER);
    const env = { DATABASE_URL: path.join(dir, 'paygate.db') };
    expect((await runBuilt(['migrate'], { cwd: dir, env })).code).toBe(0);

    const trace = path.join(dir, 'loaded.txt');
    writeFileSync(trace, '');
    const r = await runBuilt(['merchant', 'list', '--json'], {
      cwd: dir,
      env: {
        ...env,
        PAYGATE_TEST_TRACE: trace,
        NODE_OPTIONS: `--import ${pathToFileURL(path.join(dir, 'tracer.mjs')).href}`,
      },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toEqual({ data: [], next_cursor: null });
    const loaded = readFileSync(trace, 'utf8').split('\n');
    const commands = loaded.filter((u) => /\/dist\/commands\//.test(u));
    expect(commands).toEqual([expect.stringMatching(/\/dist\/commands\/merchant\/list\.js$/)]);
    for (const heavy of ['fastify', 'tronweb', 'argon2', 'pg', 'prom-client', 'pino', 'ioredis', 'undici'])
      expect(loaded.filter((u) => u.includes(`/node_modules/${heavy}/`))).toEqual([]);
  });
});

/**
 * Runs the real CLI. `runCli` runs a command in this process with oclif's `run` (the same parsing,
 * command classes and error handling as bin/run.js, without a process start: about 1 s saved per
 * command); `runCliProcess` spawns bin/dev.js, for the few tests that must prove process behaviour
 * (signals, exit codes of a real process, one process's writes seen by another).
 */
import { Config, Plugin, run } from '@oclif/core';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

export const DEV_BIN = path.resolve(import.meta.dirname, '../../bin/dev.js');
const ROOT = path.resolve(import.meta.dirname, '../..');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

function parseJson(stdout: string): unknown {
  try {
    return JSON.parse(stdout);
  } catch {
    return undefined; // human output
  }
}

let config: Promise<Config> | null = null;
/** oclif's noise when it maps dist/commands back to the TypeScript sources (see bin/dev.js). */
const NOISE = /Could not find source for|based on\s*$|tsconfig\. Defaulting to compiled source|^\s*›\s*(on )?tsconfig/;

let queue: Promise<unknown> = Promise.resolve();

/** oclif's config over the sources, never the oclif.manifest.json of the last build (see bin/dev.js). */
async function loadConfig(): Promise<Config> {
  const plugin = new Plugin({ root: ROOT, isRoot: true, ignoreManifest: true });
  await plugin.load();
  return Config.load({ root: ROOT, plugins: new Map([[plugin.name, plugin]]) });
}

/**
 * One command in this process: env and cwd as given for its duration, output captured. Commands
 * share the process's console, env and cwd, so concurrent calls run one after the other.
 */
export function runCli(args: string[], env: Record<string, string>, cwd?: string): Promise<CliResult> {
  const result = queue.then(() => runInProcess(args, env, cwd));
  queue = result.catch(() => undefined);
  return result;
}

async function runInProcess(args: string[], env: Record<string, string>, cwd?: string): Promise<CliResult> {
  config ??= loadConfig();
  const loaded = await config;
  const savedEnv = { ...process.env };
  const savedCwd = process.cwd();
  const savedExitCode = process.exitCode;
  const out: string[] = [];
  const err: string[] = [];
  const log = console.log;
  const error = console.error;
  const warn = console.warn;
  console.log = (...a: unknown[]) => void out.push(`${a.map(String).join(' ')}\n`);
  console.error = console.warn = (...a: unknown[]) => {
    const line = a.map(String).join(' ');
    if (!NOISE.test(line)) err.push(`${line}\n`);
  };
  // A few writers (the command_not_found hook) use the streams directly.
  const writeOut = process.stdout.write;
  const writeErr = process.stderr.write;
  process.stdout.write = ((chunk: unknown) => out.push(String(chunk)) > 0) as typeof process.stdout.write;
  process.stderr.write = ((chunk: unknown) =>
    NOISE.test(String(chunk)) ? true : err.push(String(chunk)) > 0) as typeof process.stderr.write;
  Object.assign(process.env, { LOG_LEVEL: 'silent', ...env });
  process.exitCode = undefined;
  let code = 0;
  try {
    if (cwd) process.chdir(cwd);
    await run(args, loaded);
    code = Number(process.exitCode ?? 0);
  } catch (e) {
    const oclif = (e as { oclif?: { exit?: number } }).oclif;
    code = oclif?.exit ?? 1;
    if (code !== 0) err.push(`${(e as Error).message}\n`);
  } finally {
    console.log = log;
    console.error = error;
    console.warn = warn;
    process.stdout.write = writeOut;
    process.stderr.write = writeErr;
    process.chdir(savedCwd);
    for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
    Object.assign(process.env, savedEnv);
    process.exitCode = savedExitCode;
  }
  const stdout = out.join('');
  return { code, stdout, stderr: err.join(''), json: parseJson(stdout) };
}

/** One command as a child process (bin/dev.js). */
export function runCliProcess(args: string[], env: Record<string, string>, cwd?: string): Promise<CliResult> {
  return runChild([DEV_BIN, ...args], { ...process.env, LOG_LEVEL: 'silent', ...env }, cwd ?? process.cwd());
}

/** The built program (`npm run build` first), as an operator runs it: bin/run.js over dist/. */
export const BUILT_BIN = path.resolve(ROOT, 'bin/run.js');

/**
 * One command of the built program as a child process, in `cwd`, with `env` over this process's
 * environment minus the variables in `unset`. NODE_ENV=production: oclif loads dist/, not the
 * TypeScript sources.
 */
export function runBuilt(
  args: string[],
  opts: { cwd: string; env?: Record<string, string>; unset?: string[] },
): Promise<CliResult> {
  if (!existsSync(path.join(ROOT, 'dist', 'commands')))
    throw new Error('dist/ is missing: run `npm run build` before the tests of the built program');
  const env: Record<string, string | undefined> = { ...process.env, LOG_LEVEL: 'silent', NODE_ENV: 'production' };
  for (const name of opts.unset ?? []) delete env[name];
  return runChild([BUILT_BIN, ...args], { ...env, ...opts.env }, opts.cwd);
}

/** Runs node with `args` to its end, collecting its output. */
function runChild(args: string[], env: Record<string, string | undefined>, cwd: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr, json: parseJson(stdout) }));
  });
}

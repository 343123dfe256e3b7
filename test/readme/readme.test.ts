/**
 * The README, followed literally on a clean clone: `npm start` (build + demo) in the background,
 * then the commands the demo prints, pasted into a shell as a newcomer would: the customer's
 * `paygate devnet pay`, the invoice read until it is settled, and every route's curl. The clone
 * shares this checkout's node_modules: CI's own `npm ci` on a clean clone proves the install step,
 * and a second install would only add minutes.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../helpers/app.js';

const repo = path.resolve(import.meta.dirname, '../..');
let demo: ChildProcess | null = null;
// npm start runs `sh -c "npm run build && node --max-old-space-size=1024 bin/run.js demo"`: signals go to the whole process
// group, as Ctrl-C in a terminal does.
afterAll(() => {
  if (!demo?.pid || demo.exitCode !== null || demo.signalCode !== null) return;
  try {
    process.kill(-demo.pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
});

function sh(command: string, cwd: string): string {
  return execFileSync('sh', ['-c', command], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, LOG_LEVEL: 'silent' },
    timeout: 60_000,
  });
}

/** The printed commands: `curl …` and `npx paygate …` lines, with backslash continuations joined. */
function printedCommands(text: string): string[] {
  return text
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('curl ') || l.startsWith('npx paygate '));
}

describe('the README on a clean clone', () => {
  it('npm start gives a demo whose printed commands work, and the paid invoice settles', async () => {
    const readme = readFileSync(path.join(repo, 'README.md'), 'utf8');
    expect(readme).toContain('npm install && npm start');
    const clone = path.join(tempDir('paygate-readme-'), 'paygate');
    execFileSync('git', ['clone', '-q', repo, clone]);
    symlinkSync(path.join(repo, 'node_modules'), path.join(clone, 'node_modules'));

    demo = spawn('npm', ['start', '--', '--port', '0', '--block-time', '300ms'], {
      cwd: clone,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LOG_LEVEL: 'silent' },
      detached: true,
    });
    let printed = '';
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: demo!.stdout! }).on('line', (l) => {
        printed += `${l}\n`;
        if (l.startsWith('Press Ctrl-C')) resolve();
      });
      demo!.once('exit', (code) => reject(new Error(`npm start exited with ${code}: ${printed}`)));
    });
    expect(existsSync(path.join(clone, 'dist', 'commands', 'demo.js'))).toBe(true);

    const commands = printedCommands(printed);
    const pay = commands.find((c) => c.startsWith('npx paygate devnet pay')) as string;
    const readInvoice = commands.find((c) => /\/invoices\/[0-9a-f-]{36} /.test(c)) as string;
    expect(pay).toBeDefined();
    expect(readInvoice).toBeDefined();
    expect(JSON.parse(sh(`${pay} --json`, clone)).txid).toMatch(/^[0-9a-f]{64}$/);
    await vi.waitFor(() => expect(JSON.parse(sh(readInvoice, clone)).status).toBe('settled'), {
      timeout: 60_000,
      interval: 500,
    });

    // Every route the demo prints answers without an error (placeholders are left to the reader).
    const routes = commands.filter((x) => x.startsWith('curl ') && !x.includes('<') && !x.includes('|'));
    // Invoice read, invoice, address and payout creation at least.
    expect(routes.length).toBeGreaterThanOrEqual(4);
    for (const c of routes) {
      const out = sh(c, clone);
      expect(out.startsWith('{'), c).toBe(true);
      expect(JSON.parse(out).error, c).toBeUndefined();
    }
    // Ctrl-C: the demo stops and deletes its temporary files.
    const exited = new Promise<void>((resolve) => demo!.once('exit', () => resolve()));
    process.kill(-(demo.pid as number), 'SIGINT');
    await exited;
    await vi.waitFor(() => expect(printed).toContain('demo stopped; its temporary files are deleted'), {
      timeout: 10_000,
    });
  }, 240_000);
});

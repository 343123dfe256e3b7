/**
 * Long operator commands show progress on a terminal only: run by a script (stdout and stderr not
 * terminals) or with --json, backup, restore and a report write no progress bytes at all; on a
 * terminal (a pseudo-terminal made by script(1)) the bar shows, and --json still prints only JSON.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';
import { BUILT_BIN, runBuilt } from '../helpers/cli.js';
import { ON_POSTGRES } from '../helpers/database.js';

/** The built program on a pseudo-terminal: stdout and stderr are the terminal, merged. */
function onTerminal(args: string[], env: Record<string, string>, cwd: string): { code: number; output: string } {
  const command = [process.execPath, BUILT_BIN, ...args].map((a) => `'${a}'`).join(' ');
  const r = spawnSync('script', ['-qec', command, '/dev/null'], {
    cwd,
    env: { ...process.env, LOG_LEVEL: 'silent', NODE_ENV: 'production', ...env },
    encoding: 'utf8',
  });
  return { code: r.status ?? -1, output: r.stdout };
}

describe.skipIf(ON_POSTGRES || !existsSync('/usr/bin/script'))('progress of long commands', () => {
  const dir = tempDir('paygate-progress-');
  const env = { DATABASE_URL: path.join(dir, 'paygate.db'), TRON_NETWORK: 'devnet' };
  const opts = { cwd: dir, env };

  it('writes nothing but the result when stdout and stderr are not terminals', async () => {
    expect((await runBuilt(['migrate'], opts)).code).toBe(0);
    const backup = await runBuilt(['backup', path.join(dir, 'a.db')], opts);
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stderr).toBe('');
    expect(backup.stdout).toMatch(/^file\s/m);

    const restore = await runBuilt(['restore', path.join(dir, 'a.db')], {
      cwd: dir,
      env: { DATABASE_URL: path.join(dir, 'restored.db') },
    });
    expect(restore.code, restore.stderr).toBe(0);
    expect(restore.stderr).toBe('');

    const report = await runBuilt(
      ['report', 'invoices', '--from', '2026-01-01', '--to', '2027-01-01', '--output', path.join(dir, 'i.csv')],
      opts,
    );
    expect(report.code, report.stderr).toBe(0);
    expect(report.stderr).toBe('');

    const json = await runBuilt(['backup', path.join(dir, 'b.db'), '--json'], opts);
    expect(json.stderr).toBe('');
    expect(json.json).toMatchObject({ integrity: 'ok' });
  });

  it('draws a bar on a terminal, and nothing but JSON there with --json', async () => {
    expect((await runBuilt(['migrate'], opts)).code).toBe(0);
    const shown = onTerminal(['backup', path.join(dir, 'c.db')], env, dir);
    expect(shown.code, shown.output).toBe(0);
    expect(shown.output).toMatch(/backup .*\d+% \| \d+\/\d+ pages/);

    const json = onTerminal(['backup', path.join(dir, 'd.db'), '--json'], env, dir);
    expect(json.code, json.output).toBe(0);
    expect(JSON.parse(json.output.replaceAll('\r', ''))).toMatchObject({ integrity: 'ok' });
  });
});

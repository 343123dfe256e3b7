/**
 * The console examples of docs/operations/console.md, run as an operator would paste them into a shell
 * (`paygate` is the real CLI, bin/dev.js) against a running app: every curl answers without an
 * error, and the changes they make are the ones the comments promise.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_BIN } from '../helpers/cli.js';
import { startConsoleApp, type ConsoleTestApp } from '../helpers/console.js';

const OPERATIONS = path.resolve(import.meta.dirname, '../../docs/operations/console.md');

/** The runnable block of the "Operator console" section: the one that sets ADMIN. */
function examples(): string {
  const doc = readFileSync(OPERATIONS, 'utf8');
  const section = doc.slice(
    doc.indexOf('## Operator console'),
    doc.indexOf('\n## ', doc.indexOf('## Operator console') + 3),
  );
  const block = [...section.matchAll(/```sh\n([\s\S]*?)```/g)]
    .map((m) => m[1] as string)
    .find((b) => b.startsWith('ADMIN='));
  if (!block)
    throw new Error('docs/operations/console.md: no example block starting with ADMIN= in "Operator console"');
  return block;
}

let t: ConsoleTestApp;
beforeAll(async () => {
  t = await startConsoleApp({ workers: false });
});
afterAll(() => t.close());

describe('docs/operations/console.md, "Operator console"', () => {
  it('runs its examples as printed: no error answer, and the changes they describe are made', async () => {
    const script = examples().replace(/^ADMIN=.*$/m, `ADMIN=${t.admin}`);
    expect(script).toContain(`ADMIN=${t.admin}`);
    const shell = `set -e\npaygate() { "${process.execPath}" "${DEV_BIN}" "$@"; }\n${script}`;
    const { stdout } = await promisify(execFile)('sh', ['-c', shell], {
      env: {
        ...process.env,
        DATABASE_URL: t.app.config.databaseUrl,
        TRON_NETWORK: 'devnet',
        LOG_LEVEL: 'silent',
      },
      timeout: 120_000,
    });
    expect(stdout).not.toContain('"error"');
    expect(stdout).toContain('"approval":"approved"');
    expect(stdout).toMatch(/sk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}/);
    expect(stdout).toContain('"requests_halted":true');
    expect(stdout).toContain('"enabled":false');

    const db = t.app.services.db;
    const token = await db
      .selectFrom('operator_tokens')
      .select('token_id')
      .where('name', '=', 'deploy bot')
      .executeTakeFirstOrThrow();
    const actions = await db
      .selectFrom('audit_log')
      .select('action')
      .where('actor', '=', token.token_id)
      .orderBy('id')
      .execute();
    expect(actions.map((a) => a.action)).toEqual([
      'merchant.create',
      'merchant.approve',
      'api_key.issue',
      'merchant.update',
      'merchant.payout_limits',
      'fee.service',
      'payout.halt',
      'payout.resume',
      'merchant.disable',
    ]);
  });
});

/**
 * One shape for every CLI list, the console's: `--json` prints `{data, next_cursor}`, `--limit`
 * sets the page size and `--cursor` (the previous page's next_cursor) goes on past it; the human
 * table ends with the command for the next page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { runCli } from '../helpers/cli.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

describe('CLI lists page as the console does', () => {
  let t: TestApp;
  let env: Record<string, string>;
  beforeAll(async () => {
    const clock = new ManualClock(new Date());
    t = await startTestApp({ workers: false, clock });
    env = { DATABASE_URL: t.app.config.databaseUrl };
    for (const name of ['First', 'Second', 'Third']) {
      await t.merchant({ name });
      clock.advance(1_000);
    }
  });
  afterAll(() => t?.close());

  it('merchant list: pages of --limit, newest first, followed with --cursor to the end', async () => {
    const first = await runCli(['merchant', 'list', '--limit', '2', '--json'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(Object.keys(first.json).sort()).toEqual(['data', 'next_cursor']);
    expect(first.json.data.map((m: { name: string }) => m.name)).toEqual(['Third', 'Second']);
    expect(first.json.next_cursor).toEqual(expect.any(String));

    const second = await runCli(
      ['merchant', 'list', '--limit', '2', '--cursor', first.json.next_cursor, '--json'],
      env,
    );
    expect(second.json).toEqual({ data: [expect.objectContaining({ name: 'First' })], next_cursor: null });

    const human = await runCli(['merchant', 'list', '--limit', '2'], env);
    expect(human.stdout).toContain(`more: paygate merchant list --limit 2 --cursor ${first.json.next_cursor}`);
    const rest = await runCli(['merchant', 'list', '--limit', '2', '--cursor', first.json.next_cursor], env);
    expect(rest.stdout).toContain('First');
    expect(rest.stdout).not.toContain('more:');
  });

  it('every list answers {data, next_cursor}', async () => {
    const merchantId = (await t.merchant({ name: 'Keys' })).merchant.merchant_id;
    for (const args of [
      ['merchant', 'list'],
      ['key', 'list', merchantId],
      ['operator', 'token', 'list'],
      ['owner', 'list'],
      ['payout', 'list'],
      ['whitelist', 'list'],
      ['webhook', 'deliveries'],
      ['deposit', 'list', '--unattributed'],
      ['asset', 'list'],
    ]) {
      const r = await runCli([...args, '--limit', '1', '--json'], { ...env, TRON_NETWORK: 'devnet' });
      expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
      expect(Object.keys(r.json).sort(), args.join(' ')).toEqual(['data', 'next_cursor']);
      expect(r.json.data.length, args.join(' ')).toBeLessThanOrEqual(1);
    }
  });

  it('a cursor no list printed, or a limit past 500: invalid_argument, nothing listed', async () => {
    const bad = await runCli(['merchant', 'list', '--cursor', 'nope', '--json'], env);
    expect(bad.code).toBe(1);
    expect(bad.json.error).toEqual({
      code: 'invalid_argument',
      message: '--cursor is not a next_cursor printed by a list command',
    });
    const big = await runCli(['payout', 'list', '--limit', '501', '--json'], env);
    expect(big.code).toBe(1);
    expect(big.json.error.code).toBe('invalid_argument');
  });
});

/**
 * `paygate owner …`: the operator makes cabinet accounts, gives and takes merchants, disables and
 * resets accounts. Real CLI (oclif's run), one database of the test engine, the audit log read back.
 */
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/app.js';
import { testDatabaseUrl, withDatabase } from '../helpers/database.js';

let env: Record<string, string>;
let shop: string;
let games: string;

const merchant = async (name: string) => {
  const r = await runCli(['merchant', 'create', '--name', name, '--json'], env);
  expect(r.code).toBe(0);
  return r.json.merchant_id as string;
};

beforeAll(async () => {
  const dir = tempDir();
  env = {
    DATABASE_URL: (await testDatabaseUrl(path.join(dir, 'paygate.db'))).url,
    TRON_NETWORK: 'devnet',
    CABINET_PUBLIC_URL: 'https://cabinet.shop.example',
  };
  shop = await merchant('Shop');
  games = await merchant('Games');
});

describe('paygate owner', () => {
  it('create prints a one-time setup link for 24 h; --json has setup_token and setup_url', async () => {
    const r = await runCli(['owner', 'create', '--email', 'Ann@Shop.Example', '--merchant', shop, '--json'], env);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({
      email: 'ann@shop.example',
      status: 'setup_pending',
      totp: false,
      merchant_ids: [shop],
    });
    expect(r.json.setup_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(r.json.setup_url).toBe(`https://cabinet.shop.example/#setup=${r.json.setup_token}`);
    const hours = (Date.parse(r.json.setup_expires_at) - Date.parse(r.json.created_at)) / 3_600_000;
    expect(hours).toBe(24);
    // Only the token's SHA-256 is stored.
    const stored = await withDatabase(env.DATABASE_URL as string, (db) =>
      db.selectFrom('owner_setup_tokens').select('token_hash').execute(),
    );
    expect(stored).toHaveLength(1);
    expect(stored[0]?.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(r.json.setup_token);

    const human = await runCli(
      ['owner', 'create', '--email', 'bob@games.example', '--merchant', games, '--merchant', shop],
      env,
    );
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(
      /setup link \(valid until .*\nhttps:\/\/cabinet\.shop\.example\/#setup=[A-Za-z0-9_-]{43}/,
    );
  });

  it('refuses a bad email, no or an unknown merchant, and an email in use, creating nothing', async () => {
    const bad = await runCli(['owner', 'create', '--email', 'not-an-email', '--merchant', shop, '--json'], env);
    expect(bad.code).toBe(1);
    expect(bad.json.error.code).toBe('invalid_argument');
    const none = await runCli(['owner', 'create', '--email', 'c@x.example', '--json'], env);
    expect(none.code).toBe(1);
    expect(none.json.error.code).toBe('invalid_argument');
    const unknown = await runCli(
      [
        'owner',
        'create',
        '--email',
        'c@x.example',
        '--merchant',
        shop,
        '--merchant',
        '00000000-0000-4000-8000-000000000000',
        '--json',
      ],
      env,
    );
    expect(unknown.json.error.code).toBe('merchant_not_found');
    const again = await runCli(['owner', 'create', '--email', 'ANN@shop.example', '--merchant', games, '--json'], env);
    expect(again.code).toBe(1);
    expect(again.json.error.code).toBe('invalid_state');
    const list = await runCli(['owner', 'list', '--json'], env);
    // Newest first, the console's shape.
    expect(list.json.next_cursor).toBeNull();
    expect(list.json.data.map((o: { email: string }) => o.email)).toEqual(['bob@games.example', 'ann@shop.example']);
    expect(list.json.data[1].merchant_ids).toEqual([shop]);
  });

  it('grant and revoke change what an account sees; each change is in the audit log', async () => {
    const granted = await runCli(['owner', 'grant', 'ann@shop.example', '--merchant', games, '--json'], env);
    expect(granted.code).toBe(0);
    expect(granted.json.merchant_ids).toEqual([shop, games].sort());
    const revoked = await runCli(
      ['owner', 'revoke', 'ann@shop.example', '--merchant', shop.toUpperCase(), '--json'],
      env,
    );
    expect(revoked.json.merchant_ids).toEqual([games]);
    const missing = await runCli(['owner', 'grant', 'nobody@x.example', '--merchant', shop, '--json'], env);
    expect(missing.code).toBe(1);
    expect(missing.json.error.code).toBe('owner_not_found');
    const actions = await withDatabase(env.DATABASE_URL as string, (db) =>
      db
        .selectFrom('audit_log')
        .select(['action', 'merchant_id'])
        .where('subject_type', '=', 'owner')
        .orderBy('id')
        .execute(),
    );
    expect(actions.map((a) => a.action)).toEqual(['owner.create', 'owner.create', 'owner.grant', 'owner.revoke']);
    expect(actions[3]?.merchant_id).toBe(shop);
  });

  it('disable, enable and reset', async () => {
    const off = await runCli(['owner', 'disable', 'bob@games.example', '--json'], env);
    expect(off.json).toMatchObject({ status: 'disabled', sessions_ended: 0 });
    const on = await runCli(['owner', 'enable', 'bob@games.example', '--json'], env);
    expect(on.json.status).toBe('setup_pending');
    const reset = await runCli(['owner', 'reset', 'bob@games.example', '--json'], env);
    expect(reset.json.setup_url).toMatch(/#setup=[A-Za-z0-9_-]{43}$/);
    const human = await runCli(['owner', 'list'], env);
    expect(human.stdout).toMatch(/^email\s+status\s+totp\s+merchants\s+created_at$/m);
    expect(human.stdout).toMatch(/^bob@games\.example\s+setup_pending\s+false\s+/m);
  });
});

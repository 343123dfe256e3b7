/**
 * `paygate key revoke <key_id>` with the key id in upper case (copied from a ticket, typed from a
 * screen): it names the same key, as merchant and payout ids do on the CLI, and the key stops
 * working; it never answers api_key_not_found while the key goes on working.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { api } from '../helpers/http.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { probeRoutes } from '../helpers/probe-routes.js';

const body = { order_id: 'o-1', asset: 'USDT_TRON', amount: '10', expires_in: 600 };
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ extraRoutes: probeRoutes });
});
afterAll(() => t.close());

describe('key revoke with an upper-case key id', () => {
  it('revokes the key, and the API refuses it', async () => {
    const { key } = await t.merchant();
    expect((await api(t.url, '/v1/probe', { key, body })).status).toBe(200);
    const keyId = key.slice(3, 19);
    const env = {
      DATABASE_URL: t.app.config.databaseUrl,
      TRON_NETWORK: 'devnet',
      WALLET_KEYSTORE: path.join(t.dir, 'ks.json'),
    };
    const revoked = await runCli(['key', 'revoke', keyId.toUpperCase(), '--json'], env);
    expect(revoked.json, revoked.stdout + revoked.stderr).toMatchObject({ key_id: keyId, status: 'revoked' });
    expect(revoked.code).toBe(0);
    // The CLI is another connection: the server reads the key row on every request.
    const r = await api(t.url, '/v1/probe', { key, body });
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('unauthorized');
  });

  it('still refuses what is not a key id', async () => {
    const env = {
      DATABASE_URL: t.app.config.databaseUrl,
      TRON_NETWORK: 'devnet',
      WALLET_KEYSTORE: path.join(t.dir, 'ks.json'),
    };
    for (const id of ['ffffffffffffffff', 'FFFFFFFFFFFFFFFG', 'sk_0123']) {
      const r = await runCli(['key', 'revoke', id, '--json'], env);
      expect(r.json.error.code, id).toBe('api_key_not_found');
    }
  });
});

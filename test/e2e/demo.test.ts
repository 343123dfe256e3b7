/** `paygate demo`: one command gives a working instance with a key that works over HTTP. */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { startDemo } from '../../src/demo/index.js';
import { DEV_BIN } from '../helpers/cli.js';
import { api } from '../helpers/http.js';

describe('paygate demo', () => {
  it('serves /v1 with an approved demo merchant and a working key, and cleans up on stop', async () => {
    const demo = await startDemo({ port: 0, blockTimeMs: 0, logLevel: 'silent' });
    try {
      const r = await api(demo.info.api_url.replace(/\/v1$/, ''), '/v1/invoices', {
        key: demo.info.api_key,
        body: { order_id: 'demo-1', asset: 'USDT_TRON', amount: '12.5', expires_in: 3600 },
      });
      expect(r.status).toBe(201);
      expect(r.body.status).toBe('created');
      // The owners' cabinet: the printed login opens both demo merchants.
      const { cabinet } = demo.info;
      const session = await api(cabinet.url, '/cabinet/v1/sessions', {
        body: { email: cabinet.email, password: cabinet.password },
      });
      expect(session.status).toBe(201);
      const merchants = await api(cabinet.url, '/cabinet/v1/merchants', {
        headers: { authorization: `Bearer ${session.body.token}` },
      });
      expect(merchants.body.data.map((m: { name: string }) => m.name).sort()).toEqual(['Demo games', 'Demo shop']);
      // The printed page link: the payment page's listener answers its view.
      const { page } = demo.info;
      expect(page.checkout_url).toBe(`${demo.app.payUrl}/pay/${page.invoice_id}`);
      const view = await api(demo.app.payUrl as string, `/pay/v1/invoices/${page.invoice_id}`);
      expect(view.body).toMatchObject({ merchant_name: 'Demo shop', price: '19.99', status: 'created' });
      expect((await fetch(`${cabinet.url}/`)).status).toBe(200);
      const node = await fetch(`${demo.info.devnet_url}/wallet/getnowblock`, { method: 'POST', body: '{}' });
      expect(((await node.json()) as { blockID: string }).blockID).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      await demo.stop();
    }
    expect(existsSync(path.dirname(demo.info.database))).toBe(false);
  });

  it('--tour runs the whole story and exits 0 only when every step happened', async () => {
    const child = spawn(process.execPath, [DEV_BIN, 'demo', '--tour', '--block-time', '300ms'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LOG_LEVEL: 'silent' },
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(out).toContain('✔ invoice settled: received 12.5, credited 12.375');
    expect(out).toContain('✔ payout confirmed');
    expect(out).toMatch(
      /✔ webhooks: \d+ verified deliveries: .*invoice\.seen.*invoice\.confirmed.*invoice\.settled.*payout\.confirmed/,
    );
    expect(out).toMatch(/The owner signs in to the cabinet \(http:\/\/127\.0\.0\.1:\d+\) as owner@demo\.example/);
    expect(out).toContain("✔ owner's cabinet: the owner sees the settled invoice and the confirmed payout");
    expect(out).toMatch(
      /The customer opens the page link http:\/\/127\.0\.0\.1:\d+\/pay\/[0-9a-f-]{36} \(19\.99 USD\)/,
    );
    expect(out).toMatch(/✔ customer picks USDT: the page shows: send 19\.99 USDT to T\w{33}/);
    expect(out).toContain('✔ page invoice paid: received 19.99 USDT; the page says paid');
    expect(out).toContain('The tour is complete');
    expect(code).toBe(0);
  }, 120_000);

  it('runs as a CLI command that prints its details and stops on SIGINT', async () => {
    const child = spawn(process.execPath, [DEV_BIN, 'demo', '--port', '0', '--block-time', '0', '--json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LOG_LEVEL: 'silent' },
    });
    const lines = createInterface({ input: child.stdout });
    const first = await new Promise<string>((resolve, reject) => {
      lines.once('line', resolve);
      child.once('exit', (code) => reject(new Error(`demo exited early with ${code}`)));
    });
    const info = JSON.parse(first);
    const r = await api(info.api_url.replace(/\/v1$/, ''), '/v1/invoices/00000000-0000-4000-8000-000000000000', {
      key: info.api_key,
    });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('invoice_not_found');
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(existsSync(info.database)).toBe(false);
  });
});

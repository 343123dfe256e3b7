/**
 * The cabinet's session cookie is `Secure` by default, whatever the request's protocol (behind a
 * TLS proxy that does not say so the request looks like plain HTTP); CABINET_INSECURE_COOKIE=1
 * sends it without (a plain-HTTP private network, the demo). `serve` refuses to start with a
 * CABINET_PUBLIC_URL of plain HTTP beyond loopback unless that variable is set: browsers would
 * never send the cookie back, and sign-in would fail silently.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliProcess } from '../helpers/cli.js';
import { tempDir } from '../helpers/app.js';
import { PASSWORD, startCabinetApp, type CabinetTestApp } from './helpers.js';

const apps: CabinetTestApp[] = [];
afterAll(async () => {
  for (const a of apps) await a.close();
});

async function cookieOf(env: Record<string, string> = {}): Promise<string> {
  const t = await startCabinetApp({ env });
  apps.push(t);
  const m = await t.merchant();
  await t.owner('web@shop.example', [m.merchant.merchant_id]);
  const r = await t.call('/cabinet/v1/sessions?transport=cookie', null, {
    body: { email: 'web@shop.example', password: PASSWORD },
  });
  expect(r.status).toBe(201);
  return r.headers.get('set-cookie') as string;
}

describe('the session cookie', () => {
  let secure: string;
  let insecure: string;
  beforeAll(async () => {
    secure = await cookieOf();
    insecure = await cookieOf({ CABINET_INSECURE_COOKIE: '1' });
  });

  it('is Secure by default, on a plain-HTTP loopback request too', () => {
    expect(secure.split('; ')).toEqual(expect.arrayContaining(['HttpOnly', 'Secure', 'SameSite=Strict']));
  });

  it('goes without Secure with CABINET_INSECURE_COOKIE=1', () => {
    expect(insecure.split('; ')).toEqual(expect.arrayContaining(['HttpOnly', 'SameSite=Strict']));
    expect(insecure.split('; ')).not.toContain('Secure');
  });
});

describe('serve and a plain-HTTP cabinet address', () => {
  it('refuses to start with a non-loopback http:// CABINET_PUBLIC_URL, naming the way out', async () => {
    const dir = tempDir();
    const r = await runCliProcess(
      ['serve'],
      { CABINET_PUBLIC_URL: 'http://cabinet.internal:9091', DATABASE_URL: `${dir}/paygate.db` },
      dir,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('CABINET_PUBLIC_URL');
    expect(r.stderr).toContain('CABINET_INSECURE_COOKIE=1');
  });

  it('with CABINET_INSECURE_COOKIE=1 it goes on to its next check (here: no database)', async () => {
    const dir = tempDir();
    const r = await runCliProcess(
      ['serve'],
      {
        CABINET_PUBLIC_URL: 'http://cabinet.internal:9091',
        CABINET_INSECURE_COOKIE: '1',
        DATABASE_URL: `${dir}/paygate.db`,
      },
      dir,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain('CABINET_INSECURE_COOKIE=1');
    expect(r.stderr).toContain('database_not_found');
  });

  it('accepts a loopback http:// address and an https:// one', async () => {
    for (const url of ['http://127.0.0.1:9091', 'http://localhost:9091', 'https://cabinet.example']) {
      const dir = tempDir();
      const r = await runCliProcess(['serve'], { CABINET_PUBLIC_URL: url, DATABASE_URL: `${dir}/paygate.db` }, dir);
      expect(r.stderr).toContain('database_not_found');
    }
  });
});

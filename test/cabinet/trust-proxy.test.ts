/**
 * The cabinet's listener has its own trusted-proxy setting, CABINET_TRUST_PROXY: without it the
 * per-IP limit counts the socket's address whatever X-Forwarded-For says, even when TRUST_PROXY
 * trusts the public listener's proxy; with it, each client named by the trusted proxy counts alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startCabinetApp, type CabinetTestApp } from './helpers.js';

const LIMIT = '3';
const from = (t: CabinetTestApp, ip: string) =>
  t.call('/cabinet/v1/account', null, { headers: { 'x-forwarded-for': ip } });

describe('the cabinet behind a proxy', () => {
  let publicOnly: CabinetTestApp;
  let trusted: CabinetTestApp;
  beforeAll(async () => {
    const clock = () => new ManualClock('2026-03-01T10:00:00Z');
    publicOnly = await startCabinetApp({
      clock: clock(),
      env: { TRUST_PROXY: '1', API_RATE_LIMIT_PER_IP: LIMIT },
    });
    trusted = await startCabinetApp({
      clock: clock(),
      env: { CABINET_TRUST_PROXY: '127.0.0.1', API_RATE_LIMIT_PER_IP: LIMIT },
    });
  });
  afterAll(async () => {
    await publicOnly?.close();
    await trusted?.close();
  });

  it("counts the socket's address when only the public listener trusts its proxy", async () => {
    for (const ip of ['192.0.2.1', '192.0.2.2', '192.0.2.3']) expect((await from(publicOnly, ip)).status).toBe(401);
    const limited = await from(publicOnly, '192.0.2.4');
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
  });

  it('counts each client the trusted proxy names when CABINET_TRUST_PROXY trusts it', async () => {
    for (const ip of ['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.4'])
      expect((await from(trusted, ip)).status).toBe(401);
    for (let i = 0; i < 2; i++) expect((await from(trusted, '198.51.100.1')).status).toBe(401);
    expect((await from(trusted, '198.51.100.1')).status).toBe(429);
    expect((await from(trusted, '198.51.100.5')).status).toBe(401);
  });
});

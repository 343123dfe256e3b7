/**
 * The real app with its cabinet listener on an ephemeral port, and what cabinet tests need: owner
 * accounts made by the operator's service functions and set up through the setup link over HTTP,
 * sign-in, and requests with a bearer token.
 */
import { expect } from 'vitest';
import { cabinetUrl } from '../../src/config.js';
import { createOwner } from '../../src/owners/service.js';
import { initWallet } from '../../src/wallet/service.js';
import { CHEAP_SCRYPT, TEST_MNEMONIC, TEST_PASSPHRASE } from '../invoices/fixture.js';
import { startTestApp, type TestApp, type TestAppOptions } from '../helpers/app.js';
import { api, type ApiRequest, type ApiResponse } from '../helpers/http.js';

export interface CabinetTestApp extends TestApp {
  /** Base URL of the cabinet listener. */
  cabinet: string;
  /** Creates an owner for these merchants and chooses its password through the setup link. */
  owner(email: string, merchantIds: string[]): Promise<{ email: string; password: string }>;
  signIn(email: string, password: string, totp?: string): Promise<string>;
  /** A cabinet request with `Authorization: Bearer <token>` (none when token is null). */
  call(path: string, token: string | null, req?: ApiRequest): Promise<ApiResponse>;
}

export const PASSWORD = 'correct horse battery staple';
/** The key the cabinet seals TOTP secrets with (CABINET_TOTP_KEY). */
export const TOTP_KEY = 'test key of the cabinet, 32 chars or more';

export async function startCabinetApp(opts: TestAppOptions = {}): Promise<CabinetTestApp> {
  const t = await startTestApp({
    cabinet: { loginPerIp: 1000, loginPerAccount: 1000 },
    ...opts,
    env: { WALLET_PASSPHRASE: TEST_PASSPHRASE, CABINET_TOTP_KEY: TOTP_KEY, ...opts.env },
  });
  // A wallet, so /v1 can hand out deposit addresses.
  await initWallet(t.app.services.db, t.clock, 'test', t.app.config, { mnemonic: TEST_MNEMONIC, scrypt: CHEAP_SCRYPT });
  const cabinet = t.app.cabinetUrl as string;
  const call = (path: string, token: string | null, req: ApiRequest = {}) =>
    api(cabinet, path, { ...req, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...req.headers } });
  return {
    ...t,
    cabinet,
    call,
    async owner(email, merchantIds) {
      const created = await createOwner(t.app.services.db, t.clock, 'test', {
        email,
        merchantIds,
        cabinetUrl: cabinetUrl(t.app.config),
      });
      const r = await call('/cabinet/v1/account/setup', null, {
        body: { setup_token: created.setup_token, password: PASSWORD },
      });
      expect(r.status).toBe(200);
      return { email, password: PASSWORD };
    },
    async signIn(email, password, totp) {
      const r = await call('/cabinet/v1/sessions', null, {
        body: { email, password, ...(totp ? { totp } : {}) },
      });
      expect(r.status, r.text).toBe(201);
      return r.body.token as string;
    },
  };
}

/**
 * The operator console of a real app (test/helpers/app.ts) over real HTTP: the admin listener's
 * URL, an operator token issued the way `paygate operator token issue` issues it (cheap argon2
 * parameters, as test API keys), and a request helper that sends it as a Bearer token.
 */
import path from 'node:path';
import { expect } from 'vitest';
import { issueOperatorToken, type OperatorTokenTerms } from '../../src/operators/service.js';
import { startTestApp, TEST_HASH_COST, type TestApp, type TestAppOptions } from './app.js';
import { api, type ApiRequest, type ApiResponse } from './http.js';
import { ResponseChecker } from './openapi-check.js';

export interface ConsoleTestApp extends TestApp {
  /** Base URL of the admin listener. */
  admin: string;
  token: string;
  tokenId: string;
  /**
   * A console request with `token` (default: the app's token; null: none). Every answer is checked
   * against the served OpenAPI document: a documented status, a body of its response schema.
   */
  call(path: string, req?: ApiRequest & { token?: string | null }): Promise<ApiResponse>;
  /** The served OpenAPI document's checker. */
  checker: ResponseChecker;
  /** A token issued as `operator token issue` does, with `terms` (default: full access, no expiry, any address). */
  issueToken(name?: string, terms?: OperatorTokenTerms): Promise<{ token: string; tokenId: string }>;
}

export async function startConsoleApp(opts: TestAppOptions = {}): Promise<ConsoleTestApp> {
  const t = await startTestApp(opts);
  const issueToken = async (name = 'tests', terms: OperatorTokenTerms = {}) => {
    const issued = await issueOperatorToken(t.app.services.db, t.clock, 'cli:test', name, TEST_HASH_COST, terms);
    return { token: issued.token, tokenId: issued.token_id };
  };
  const { token, tokenId } = await issueToken();
  const admin = t.app.adminUrl as string;
  const checker = new ResponseChecker((await api(admin, '/admin/v1/openapi.json')).body);
  return {
    ...t,
    admin,
    token,
    tokenId,
    issueToken,
    checker,
    async call(path, req = {}) {
      const { token: given, ...rest } = req;
      const bearer = given === undefined ? token : given;
      const headers = { ...(rest.headers ?? {}), ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) };
      const r = await api(admin, path, { ...rest, headers });
      const method = rest.method ?? (rest.body === undefined && rest.rawBody === undefined ? 'GET' : 'POST');
      if (path.startsWith('/admin/v1/') && path !== '/admin/v1/openapi.json') {
        const mediaType = (r.headers.get('content-type') ?? 'application/json').split(';')[0] as string;
        checker.check(method, path, r.status, mediaType === 'application/json' ? r.body : r.text, mediaType);
      }
      return r;
    },
  };
}

/** What the real CLI needs to act on the app's database (`operator token issue`, …). */
export function cliEnvOf(t: TestApp): Record<string, string> {
  return {
    DATABASE_URL: t.app.config.databaseUrl,
    TRON_NETWORK: 'devnet',
    WALLET_KEYSTORE: path.join(t.dir, 'keystore.json'),
  };
}

/** The console's one 401, whatever is wrong with the token: its cause is never told. */
export function expectUnauthorized(r: ApiResponse, label: string): void {
  expect(r.status, `${label}: ${r.text}`).toBe(401);
  expect(r.body, label).toEqual({ error: { code: 'unauthorized', message: 'Missing or invalid operator token' } });
  expect(r.headers.get('x-request-id'), label).toBeTruthy();
}

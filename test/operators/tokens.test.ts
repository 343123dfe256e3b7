/**
 * Operator tokens end to end: issued, listed and revoked by the real CLI on the database a running
 * app serves, then used over real HTTP on the admin listener. A missing, malformed, unknown, wrong
 * or revoked token is one and the same 401; a flood of wrong tokens is refused without unbounded
 * hashing; the console is never on the public listener.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { cliEnvOf, expectUnauthorized, startConsoleApp, type ConsoleTestApp } from '../helpers/console.js';
import { api, isErrorBody } from '../helpers/http.js';

const TOKEN_SHAPE = /^op_([0-9a-f]{16})_[A-Za-z0-9_-]{43}$/;

let t: ConsoleTestApp;
let env: Record<string, string>;

beforeAll(async () => {
  t = await startConsoleApp({ workers: false });
  env = cliEnvOf(t);
});
afterAll(() => t.close());

describe('paygate operator token', () => {
  it('issues a token shown once, stored as argon2id, that opens the console', async () => {
    const issued = await runCli(['operator', 'token', 'issue', '--name', 'deploy bot', '--json'], env);
    expect(issued.code, issued.stderr).toBe(0);
    const token = issued.json.token as string;
    expect(token).toMatch(TOKEN_SHAPE);
    expect(TOKEN_SHAPE.exec(token)?.[1]).toBe(issued.json.token_id);
    expect(issued.json).toMatchObject({ name: 'deploy bot', status: 'active', revoked_at: null });

    const stored = await t.app.services.db
      .selectFrom('operator_tokens')
      .selectAll()
      .where('token_id', '=', issued.json.token_id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(stored)).not.toContain(token.slice(20));
    expect(stored.secret_hash).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);

    const r = await t.call('/admin/v1/merchants', { token });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ data: [], next_cursor: null });

    const human = await runCli(['operator', 'token', 'issue', '--name', 'alice'], env);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/shown once/);
    expect(human.stdout.match(/op_[0-9a-f]{16}_[A-Za-z0-9_-]{43}/g)).toHaveLength(1);
  });

  it('lists tokens without their secrets', async () => {
    const listed = await runCli(['operator', 'token', 'list', '--json'], env);
    expect(listed.code).toBe(0);
    const names = (listed.json.data as Array<{ name: string }>).map((x) => x.name);
    expect(names).toEqual(expect.arrayContaining(['tests', 'deploy bot', 'alice']));
    expect(listed.stdout).not.toMatch(/op_[0-9a-f]{16}_/);
    for (const tok of listed.json.data) expect(Object.keys(tok)).not.toContain('token');
  });

  it('refuses a bad name and an unknown token id with their codes', async () => {
    const blank = await runCli(['operator', 'token', 'issue', '--name', '  ', '--json'], env);
    expect(blank.code).toBe(1);
    expect(blank.json.error.code).toBe('invalid_argument');
    const unknown = await runCli(['operator', 'token', 'revoke', '0123456789abcdef', '--json'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.json.error.code).toBe('operator_token_not_found');
  });

  it('revokes a token: the console refuses it from the next request, the others keep working', async () => {
    const { token, tokenId } = await t.issueToken('to revoke');
    expect((await t.call('/admin/v1/merchants', { token })).status).toBe(200);
    const revoked = await runCli(['operator', 'token', 'revoke', tokenId.toUpperCase(), '--json'], env);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.json).toMatchObject({ token_id: tokenId, status: 'revoked', revoked_by: expect.any(String) });
    expectUnauthorized(await t.call('/admin/v1/merchants', { token }), 'revoked');
    expect((await t.call('/admin/v1/merchants')).status).toBe(200);
    // Revoking again changes nothing.
    const again = await runCli(['operator', 'token', 'revoke', tokenId, '--json'], env);
    expect(again.json.revoked_at).toBe(revoked.json.revoked_at);
    const audit = await t.app.services.db
      .selectFrom('audit_log')
      .select('action')
      .where('subject_type', '=', 'operator_token')
      .where('subject_id', '=', tokenId)
      .orderBy('id')
      .execute();
    expect(audit.map((a) => a.action)).toEqual(['operator_token.issue', 'operator_token.revoke']);
  });
});

describe('console authentication', () => {
  it('answers one 401 body whatever is wrong with the token', async () => {
    const { token } = await t.issueToken('shape donor');
    const [, id] = TOKEN_SHAPE.exec(token) as RegExpExecArray;
    const wrongSecret = `op_${id}_${'A'.repeat(43)}`;
    const unknownId = `op_0000000000000000_${token.slice(20)}`;
    const cases: Array<[string, Record<string, string>]> = [
      ['no header', {}],
      ['empty bearer', { authorization: 'Bearer ' }],
      ['basic scheme', { authorization: `Basic ${token}` }],
      ['malformed token', { authorization: 'Bearer op_123' }],
      ['API key shape', { authorization: `Bearer sk_${id}_${token.slice(20)}` }],
      ['unknown token id', { authorization: `Bearer ${unknownId}` }],
      ['wrong secret', { authorization: `Bearer ${wrongSecret}` }],
      ['token in X-Api-Key', { 'x-api-key': token }],
    ];
    for (const [label, headers] of cases)
      expectUnauthorized(await t.call('/admin/v1/merchants', { token: null, headers }), label);
    // A body does not change the order: the token is checked before the body is read.
    expectUnauthorized(
      await t.call('/admin/v1/merchants', {
        token: null,
        rawBody: '{not json',
        headers: { 'content-type': 'application/json' },
      }),
      'bad body',
    );
    // The scheme is case-insensitive.
    expect(
      (await t.call('/admin/v1/merchants', { token: null, headers: { authorization: `bearer ${token}` } })).status,
    ).toBe(200);
  });

  it('refuses a flood of wrong secrets for one token without hashing each: 429 once the budget is spent', async () => {
    const { token } = await t.issueToken('flood target');
    const id = token.slice(3, 19);
    // The same wrong secret again and again is remembered: always 401, never a budget spent.
    const same = `op_${id}_${'B'.repeat(43)}`;
    for (let i = 0; i < 15; i++)
      expectUnauthorized(await t.call('/admin/v1/merchants', { token: same }), `repeat ${i}`);
    // Distinct wrong secrets spend this client's budget for the token, then 429 with Retry-After.
    const answers: number[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await t.call('/admin/v1/merchants', { token: `op_${id}_${String(i).padStart(43, 'C')}` });
      answers.push(r.status);
      if (r.status === 429) {
        expect(r.body.error.code).toBe('rate_limited');
        expect(r.body.error.message).toMatch(/operator tokens/);
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    }
    expect(answers.filter((s) => s === 401).length).toBeGreaterThan(0);
    expect(answers.at(-1)).toBe(429);
    // The right token of another id is untouched by that budget.
    expect((await t.call('/admin/v1/merchants')).status).toBe(200);
  });

  it('is served on the admin listener only: the public listener answers 404 route_not_found', async () => {
    for (const [method, p] of [
      ['GET', '/admin/v1/merchants'],
      ['GET', '/admin/v1/openapi.json'],
      ['POST', '/admin/v1/merchants'],
    ] as const) {
      const r = await api(t.url, p, {
        method,
        headers: { authorization: `Bearer ${t.token}` },
        ...(method === 'POST' ? { body: { name: 'x' } } : {}),
      });
      expect(r.status, `${method} ${p}`).toBe(404);
      expect(r.body.error.code).toBe('route_not_found');
    }
    // And the admin listener serves no /v1.
    const v1 = await t.call('/v1/invoices', { body: {} });
    expect(v1.status).toBe(404);
    expect(isErrorBody(v1.body)).toBe(true);
  });

  it('answers unknown console routes 404 route_not_found before the token, with X-Request-Id', async () => {
    for (const p of ['/admin/v1/nope', '/admin/v1/reports/bookings', '/admin/v1/reserve', '/admin/v2/merchants']) {
      const r = await t.call(p, { token: null, headers: { 'x-request-id': 'trace-1.2:3' } });
      expect(r.status, p).toBe(404);
      expect(r.body.error.code).toBe('route_not_found');
      expect(r.headers.get('x-request-id')).toBe('trace-1.2:3');
    }
    const generated = await t.call('/admin/v1/merchants', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    // The probes beside the console need no token.
    expect((await t.call('/healthz', { token: null })).status).toBe(200);
  });
});

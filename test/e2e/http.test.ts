/** The cross-cutting /v1 contract over real HTTP: request ids, 404s, body faults, validation, errors. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, isErrorBody, rawRequest as rawTo } from '../helpers/http.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { probeRoutes } from '../helpers/probe-routes.js';
import { admin, ON_POSTGRES } from '../helpers/database.js';

let t: TestApp;
let key: string;
const goodBody = { order_id: 'o-1', asset: 'USDT_TRON', amount: '10', expires_in: 600 };

beforeAll(async () => {
  t = await startTestApp({ extraRoutes: probeRoutes });
  key = (await t.merchant()).key;
});
afterAll(() => t.close());

describe('X-Request-Id', () => {
  it('echoes a well-formed client id on success and on errors', async () => {
    const ok = await api(t.url, '/v1/probe', { key, body: goodBody, headers: { 'x-request-id': 'abc.DEF_1:2-3' } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-request-id')).toBe('abc.DEF_1:2-3');
    const err = await api(t.url, '/v1/nowhere', { headers: { 'x-request-id': 'req-42' } });
    expect(err.status).toBe(404);
    expect(err.headers.get('x-request-id')).toBe('req-42');
  });

  it('replaces an ill-formed or too long id with a fresh UUID', async () => {
    for (const bad of ['has space', 'a'.repeat(129), 'semi;colon', 'ü']) {
      const r = await api(t.url, '/v1/probe', {
        key,
        body: goodBody,
        headers: { 'x-request-id': encodeURI(bad) === bad ? bad : 'x/y' },
      });
      expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    }
    const a = await api(t.url, '/v1/nowhere');
    const b = await api(t.url, '/v1/nowhere');
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });

  it('accepts exactly 128 characters', async () => {
    const id = 'x'.repeat(128);
    const r = await api(t.url, '/v1/nowhere', { headers: { 'x-request-id': id } });
    expect(r.headers.get('x-request-id')).toBe(id);
  });
});

describe('routing', () => {
  it('answers 404 route_not_found for unknown paths and methods, before authentication', async () => {
    for (const [method, path] of [
      ['GET', '/v1/nowhere'],
      ['DELETE', '/v1/probe'],
      ['GET', '/'],
      ['GET', '/admin/v1/merchants'],
      ['GET', '/cabinet/v1/merchants'],
      ['PATCH', '/v1/invoices'],
    ] as const) {
      const r = await api(t.url, path, { method });
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body.error.code).toBe('route_not_found');
      expect(isErrorBody(r.body)).toBe(true);
    }
  });

  it('carries rate-limit headers on every /v1 response, 404s included', async () => {
    for (const r of [
      await api(t.url, '/v1/nowhere'),
      await api(t.url, '/v1/probe', { key, body: goodBody }),
      await api(t.url, '/v1/probe', { body: goodBody }),
    ]) {
      expect(r.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
      expect(r.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
      expect(r.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
    }
  });
});

describe('body faults', () => {
  it('invalid JSON is 400 bad_request', async () => {
    const r = await api(t.url, '/v1/probe', {
      key,
      rawBody: '{"order_id": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('bad_request');
  });

  it('an unsupported Content-Type is 415 bad_request', async () => {
    for (const ct of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const r = await api(t.url, '/v1/probe', { key, rawBody: 'order_id=1', headers: { 'content-type': ct } });
      expect(r.status, ct).toBe(415);
      expect(r.body.error.code).toBe('bad_request');
    }
  });

  it('a body over 16 KiB is 413 bad_request; 16 KiB exactly is read', async () => {
    const big = JSON.stringify({ ...goodBody, pad: 'x'.repeat(16 * 1024) });
    const r = await api(t.url, '/v1/probe', { key, rawBody: big, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('bad_request');
    const base = JSON.stringify({ ...goodBody, pad: '' });
    const exact = JSON.stringify({ ...goodBody, pad: 'x'.repeat(16 * 1024 - base.length) });
    expect(Buffer.byteLength(exact)).toBe(16 * 1024);
    const r2 = await api(t.url, '/v1/probe', { key, rawBody: exact, headers: { 'content-type': 'application/json' } });
    expect(r2.status).toBe(400);
    expect(r2.body.error.code).toBe('validation_failed');
  });

  it('checks authentication before the body', async () => {
    const r = await api(t.url, '/v1/probe', { rawBody: '{bad', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(401);
  });
});

describe('validation', () => {
  it('lists every problem with body.<field> paths', async () => {
    const r = await api(t.url, '/v1/probe', {
      key,
      body: { order_id: 'has space', asset: 'usdt', amount: '', expires_in: 59, extra: 1 },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_failed');
    const paths = r.body.error.details.map((d: { path: string }) => d.path).sort();
    expect(paths).toEqual(['body.amount', 'body.asset', 'body.expires_in', 'body.extra', 'body.order_id']);
    expect(isErrorBody(r.body)).toBe(true);
  });

  it('explains formats in words, not regular expressions', async () => {
    const r = await api(t.url, '/v1/probe', { key, body: { ...goodBody, order_id: 'a b', asset: 'usdt' } });
    expect(r.body.error.details).toEqual([
      { path: 'body.order_id', message: 'must be printable ASCII characters (0x21 to 0x7E), without spaces' },
      { path: 'body.asset', message: 'must be an asset code such as USDT_TRON' },
    ]);
  });

  it('names each missing field', async () => {
    const r = await api(t.url, '/v1/probe', { key, body: {} });
    const paths = r.body.error.details.map((d: { path: string }) => d.path).sort();
    expect(paths).toEqual(['body.amount', 'body.asset', 'body.expires_in', 'body.order_id']);
  });

  it('does not coerce types', async () => {
    const r = await api(t.url, '/v1/probe', { key, body: { ...goodBody, expires_in: '600' } });
    expect(r.status).toBe(400);
    expect(r.body.error.details).toEqual([{ path: 'body.expires_in', message: expect.any(String) }]);
  });

  it('reports a non-object body at path body', async () => {
    for (const raw of ['[]', '"text"', '42', 'null']) {
      const r = await api(t.url, '/v1/probe', { key, rawBody: raw, headers: { 'content-type': 'application/json' } });
      expect(r.status, raw).toBe(400);
      expect(r.body.error.code).toBe('validation_failed');
      expect(r.body.error.details[0].path).toBe('body');
    }
  });

  it('validates path parameters as params.id', async () => {
    const r = await api(t.url, '/v1/probe/not-a-uuid', { key });
    expect(r.status).toBe(400);
    expect(r.body.error.details).toEqual([{ path: 'params.id', message: expect.any(String) }]);
  });

  it('gives the same error for the same bad request', async () => {
    const bad = { order_id: '', asset: 'x', amount: 'y'.repeat(101), expires_in: 1e9 };
    const a = await api(t.url, '/v1/probe', { key, body: bad });
    const b = await api(t.url, '/v1/probe', { key, body: bad });
    expect(a.body).toEqual(b.body);
  });

  it('accepts the printable ASCII range 0x21..0x7E and 200 characters', async () => {
    const all = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
    expect((await api(t.url, '/v1/probe', { key, body: { ...goodBody, order_id: all } })).status).toBe(200);
    expect((await api(t.url, '/v1/probe', { key, body: { ...goodBody, order_id: 'a'.repeat(200) } })).status).toBe(200);
    expect((await api(t.url, '/v1/probe', { key, body: { ...goodBody, order_id: 'a'.repeat(201) } })).status).toBe(400);
  });
});

describe('faults outside routing', () => {
  const rawRequest = (text: string) => rawTo(t.url, text);
  const jsonOf = (raw: string) => JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));

  it('a malformed percent-escape answers in the error shape with every header', async () => {
    const r = await api(t.url, '/v1/probe/%zz', { key });
    expect(r.status).toBe(400);
    expect(isErrorBody(r.body)).toBe(true);
    expect(r.body.error.code).toBe('bad_request');
    expect(r.headers.get('x-request-id')).toBeTruthy();
    expect(r.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
  });

  it('a malformed HTTP request gets the error shape and a request id', async () => {
    const raw = await rawRequest('GET /v1/probe HTTP/1.1\r\nHost: a\r\nBad Header\r\n\r\n');
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(raw.toLowerCase()).toContain('x-request-id: ');
    expect(isErrorBody(jsonOf(raw))).toBe(true);
  });

  it('headers too large get 431 bad_request', async () => {
    const raw = await rawRequest(`GET /v1/probe HTTP/1.1\r\nHost: a\r\nX-Api-Key: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(raw).toMatch(/^HTTP\/1\.1 431 /);
    expect(jsonOf(raw).error.code).toBe('bad_request');
  });
});

describe('bodies beyond plain JSON', () => {
  it('reports __proto__ and constructor keys as fields that are not allowed', async () => {
    const raw = JSON.stringify(goodBody).replace('{', '{"__proto__":{"polluted":true},"constructor":{"prototype":{}},');
    const r = await api(t.url, '/v1/probe', { key, rawBody: raw, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_failed');
    expect(r.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual([
      'body.__proto__',
      'body.constructor',
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses encoded bodies and other charsets with 415, accepts utf-8', async () => {
    const raw = JSON.stringify(goodBody);
    const gz = await api(t.url, '/v1/probe', {
      key,
      rawBody: raw,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(gz.status).toBe(415);
    const latin = await api(t.url, '/v1/probe', {
      key,
      rawBody: raw,
      headers: { 'content-type': 'application/json; charset=latin1' },
    });
    expect(latin.status).toBe(415);
    expect(latin.body.error.code).toBe('bad_request');
    const utf8 = await api(t.url, '/v1/probe', {
      key,
      rawBody: raw,
      headers: { 'content-type': 'application/json; charset=UTF-8' },
    });
    expect(utf8.status).toBe(200);
  });

  it('finds a record by an upper-case UUID and refuses urn:uuid: forms', async () => {
    const id = '2b8e9b8a-2f2b-4d0c-9c3c-11111111111a';
    const upper = await api(t.url, `/v1/probe/${id.toUpperCase()}`, { key });
    expect(upper.body.id).toBe(id);
    const urn = await api(t.url, `/v1/probe/urn:uuid:${id}`, { key });
    expect(urn.status).toBe(400);
    expect(urn.body.error.details).toEqual([{ path: 'params.id', message: 'must be a UUID' }]);
  });
});

describe('faults', () => {
  it('an unhandled error is 500 internal_error with nothing internal in the body', async () => {
    const r = await api(t.url, '/v1/boom', { key });
    expect(r.status).toBe(500);
    expect(r.body.error.code).toBe('internal_error');
    expect(r.text).not.toContain('passwd');
    expect(r.text).not.toContain('at ');
    expect(r.headers.get('x-request-id')).toBeTruthy();
  });
});

describe('OpenAPI', () => {
  it('serves an OpenAPI 3.1 document without a key', async () => {
    const r = await api(t.url, '/v1/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('3.1.0');
    expect(r.body.info.version).toBe('1');
    expect(r.body.paths['/v1/probe'].post.requestBody.content['application/json'].schema.required).toEqual(
      expect.arrayContaining(['order_id', 'asset', 'amount', 'expires_in']),
    );
    expect(r.body.paths['/v1/openapi.json']).toBeUndefined();
  });

  it('describes every merchant route with its request, responses, error body and headers', async () => {
    const doc = (await api(t.url, '/v1/openapi.json')).body;
    expect(doc.components.schemas.ErrorBody.properties.error.required).toEqual(['code', 'message']);
    expect(doc.components.securitySchemes.apiKey).toEqual({ type: 'apiKey', in: 'header', name: 'X-Api-Key' });
    const ops: Array<[string, string, string[]]> = [
      ['/v1/invoices', 'post', ['200', '201', '400', '401', '403', '409', '422', '429', '503']],
      ['/v1/invoices/{id}', 'get', ['200', '400', '401', '403', '404', '429']],
      ['/v1/addresses', 'post', ['200', '400', '401', '403', '409', '429', '503']],
      ['/v1/payouts', 'post', ['200', '202', '400', '401', '403', '409', '422', '429', '503']],
      ['/v1/payouts/{id}', 'get', ['200', '400', '401', '403', '404', '429']],
    ];
    for (const [path, method, statuses] of ops) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(Object.keys(op.responses).sort(), `${method} ${path}`).toEqual(expect.arrayContaining(statuses));
      for (const [status, res] of Object.entries<any>(op.responses)) {
        expect(res.description, `${path} ${status}`).not.toBe('Default Response');
        expect(Object.keys(res.headers), `${path} ${status}`).toEqual(
          expect.arrayContaining(['X-Request-Id', 'x-ratelimit-limit']),
        );
        if (status.startsWith('4') || status.startsWith('5'))
          expect(JSON.stringify(res.content), `${path} ${status}`).toContain('ErrorBody');
      }
      expect(op.responses['429'].headers['Retry-After']).toBeDefined();
      if (method === 'post') expect(op.requestBody.content['application/json'].schema.additionalProperties).toBe(false);
    }
  });
});

describe('database unavailable', () => {
  it.skipIf(ON_POSTGRES)('answers 503 service_unavailable, not 500', async () => {
    const t2 = await startTestApp({ extraRoutes: probeRoutes });
    const { key: k } = await t2.merchant();
    expect((await api(t2.url, '/v1/probe', { key: k, body: goodBody })).status).toBe(200);
    t2.app.database.sqlite!.close();
    // A creation needs the writer, which is gone.
    const r = await api(t2.url, '/v1/invoices', { key: k, body: { ...goodBody, order_id: 'o-unavailable' } });
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('service_unavailable');
    // Reads have a connection of their own, still open: a request that only reads (its key
    // row, here) is still answered.
    expect((await api(t2.url, '/v1/probe', { key: k, body: goodBody })).status).toBe(200);
    await t2.close();
  });

  // PostgreSQL closed to connections (maintenance) and its connections ended: every request that
  // needs the database is answered 503, and the app serves again once the server does.
  it.skipIf(!ON_POSTGRES)('answers 503 service_unavailable on PostgreSQL, not 500, and recovers', async () => {
    const t2 = await startTestApp({ extraRoutes: probeRoutes });
    const { key: k } = await t2.merchant();
    expect((await api(t2.url, '/v1/probe', { key: k, body: goodBody })).status).toBe(200);
    const name = new URL(t2.app.config.databaseUrl).pathname.slice(1);
    const allow = (on: boolean) =>
      admin(async (c) => {
        await c.query(`alter database "${name}" allow_connections ${on}`);
        if (!on) await c.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [name]);
      });
    await allow(false);
    try {
      const r = await api(t2.url, '/v1/invoices', { key: k, body: { ...goodBody, order_id: 'o-unavailable' } });
      expect(r.status, r.text).toBe(503);
      expect(r.body.error.code).toBe('service_unavailable');
      expect((await api(t2.url, '/v1/probe', { key: k, body: goodBody })).status).toBe(503);
    } finally {
      await allow(true);
    }
    expect((await api(t2.url, '/v1/probe', { key: k, body: goodBody })).status).toBe(200);
    await t2.close();
  });
});

/**
 * An `Expect` other than 100-continue is refused by Node itself before fastify sees the request;
 * the refusal must still be the spec's error: body {error: {code, message}} and X-Request-Id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isErrorBody, rawRequest as rawTo } from '../helpers/http.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { probeRoutes } from '../helpers/probe-routes.js';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await startTestApp({ extraRoutes: probeRoutes });
  key = (await t.merchant()).key;
});
afterAll(() => t.close());

const rawRequest = (text: string) => rawTo(t.url, text);

describe('Expect header', () => {
  it('an unsupported expectation gets 417 bad_request in the error shape with a request id', async () => {
    const body = JSON.stringify({ order_id: 'o-1', asset: 'USDT_TRON', amount: '10', expires_in: 600 });
    const raw = await rawRequest(
      `POST /v1/probe HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\nX-Api-Key: ${key}\r\nX-Request-Id: exp-1\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(raw).toMatch(/^HTTP\/1\.1 417 /);
    const head = raw.slice(0, raw.indexOf('\r\n\r\n')).toLowerCase();
    expect(head).toContain('x-request-id: exp-1');
    const parsed = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
    expect(isErrorBody(parsed), raw).toBe(true);
    expect(parsed.error.code).toBe('bad_request');
  });

  it('the 417 carries the rate headers every /v1 response carries, and counts toward the per-IP limit', async () => {
    const ask = (expectation: string) =>
      rawRequest(
        `GET /v1/probe/7d3f1e2a-4b5c-4d6e-8f70-1a2b3c4d5e6f HTTP/1.1\r\nHost: a\r\n${expectation}X-Api-Key: ${key}\r\nConnection: close\r\n\r\n`,
      );
    const headOf = (raw: string) => raw.slice(0, raw.indexOf('\r\n\r\n')).toLowerCase();
    const remaining = (raw: string) => Number(/x-ratelimit-remaining: (\d+)/.exec(headOf(raw))?.[1]);
    const refused = await ask('Expect: 200-ok\r\n');
    expect(refused).toMatch(/^HTTP\/1\.1 417 /);
    expect(headOf(refused), refused).toMatch(/x-ratelimit-limit: \d+/);
    expect(headOf(refused)).toMatch(/x-ratelimit-reset: \d+/);
    const before = remaining(refused);
    expect(before).toBeGreaterThanOrEqual(0);
    await ask('Expect: 200-ok\r\n');
    const next = await ask('');
    expect(next).toMatch(/^HTTP\/1\.1 (200|404) /);
    expect(remaining(next)).toBeLessThan(before - 1);
  });

  it('100-continue still works', async () => {
    const body = JSON.stringify({ order_id: 'o-1', asset: 'USDT_TRON', amount: '10', expires_in: 600 });
    const raw = await rawRequest(
      `POST /v1/probe HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nX-Api-Key: ${key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(raw).toMatch(/HTTP\/1\.1 200 /);
  });
});

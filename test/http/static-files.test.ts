/**
 * The one static server of the web pages, on both listeners that serve one (the cabinet's page and
 * the payment page): each file in the encoding the client accepts (brotli first, then gzip, else
 * as it is) with `Vary: Accept-Encoding`, the same bytes once decoded; the hashed bundle and style
 * sheet cached a year, immutable; HTML and the unhashed files revalidated (`no-cache`) and answered
 * 304 for the ETag the client holds.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireMerchant } from '../../src/merchants/service.js';
import { pageDeps, PAY_PAGE_DIR } from '../../src/pay/server.js';
import { createPageInvoice } from '../../src/pay/service.js';
import { startCabinetApp, type CabinetTestApp } from '../cabinet/helpers.js';

// The fetch of Node decodes bodies by itself: the raw bytes and headers come from node:http.
const require = createRequire(import.meta.url);
const http = require('node:http') as typeof import('node:http');

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function get(url: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      })
      .on('error', reject);
  });
}

const decoded = (r: Raw) =>
  r.headers['content-encoding'] === 'br'
    ? brotliDecompressSync(r.body)
    : r.headers['content-encoding'] === 'gzip'
      ? gunzipSync(r.body)
      : r.body;

let t: CabinetTestApp;
let payIndexUrl: string;

beforeAll(async () => {
  t = await startCabinetApp();
  const { merchant } = await t.merchant();
  const s = t.app.services;
  const { invoice } = await createPageInvoice(
    pageDeps(s),
    await requireMerchant(s.db, merchant.merchant_id),
    { order_id: 'static-1', price: '5', expires_in: 900 },
    'test',
  );
  payIndexUrl = invoice.checkout_url;
});
afterAll(() => t?.close());

/** The bundle and style sheet index.html names (hashed by the build). */
function assetsOf(html: string): string[] {
  const names = [...html.matchAll(/(?:src|href)="([^"]*-[A-Z0-9]{8}\.(?:js|css))"/g)].map((m) => m[1] as string);
  expect(names).toHaveLength(2);
  return names;
}

describe.each([
  ['the payment page', () => payIndexUrl, () => t.app.payUrl as string, PAY_PAGE_DIR()],
  ['the cabinet page', () => `${t.cabinet}/`, () => t.cabinet, path.join(path.dirname(PAY_PAGE_DIR()), 'cabinet')],
])('%s', (_name, indexUrl, origin, dir) => {
  it('answers each file in brotli, gzip or as it is, by Accept-Encoding, with Vary', async () => {
    const index = await get(indexUrl(), { 'accept-encoding': 'gzip, deflate, br' });
    expect(index.status).toBe(200);
    expect(index.headers['content-encoding']).toBe('br');
    expect(index.headers.vary).toMatch(/Accept-Encoding/i);
    const html = decoded(index).toString('utf8');
    for (const asset of assetsOf(html)) {
      const file = readFileSync(path.join(dir, path.basename(asset)));
      const br = await get(`${origin()}${asset}`, { 'accept-encoding': 'gzip, br' });
      const gzip = await get(`${origin()}${asset}`, { 'accept-encoding': 'gzip;q=1, br;q=0' });
      const plain = await get(`${origin()}${asset}`);
      expect([
        br.headers['content-encoding'],
        gzip.headers['content-encoding'],
        plain.headers['content-encoding'],
      ]).toEqual(['br', 'gzip', undefined]);
      for (const r of [br, gzip, plain]) {
        expect(r.status).toBe(200);
        expect(r.headers.vary).toMatch(/Accept-Encoding/i);
        expect(decoded(r).equals(file), asset).toBe(true);
      }
      // Compressed is smaller: what the build's copies are for.
      expect(br.body.length).toBeLessThan(file.length);
      expect(gzip.body.length).toBeLessThan(file.length);
    }
  });

  it('caches the hashed files a year, immutable, and revalidates HTML and the icon', async () => {
    const index = await get(indexUrl());
    expect(index.headers['cache-control']).toBe('no-cache');
    expect(String(index.headers['content-type'])).toMatch(/^text\/html/);
    for (const asset of assetsOf(index.body.toString('utf8')))
      expect((await get(`${origin()}${asset}`)).headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const icon = await get(
      `${new URL(indexUrl()).origin}${new URL(indexUrl()).pathname.startsWith('/pay') ? '/pay' : ''}/favicon.svg`,
      {
        'accept-encoding': 'gzip',
      },
    );
    expect([icon.status, icon.headers['cache-control'], icon.headers['content-encoding']]).toEqual([
      200,
      'no-cache',
      'gzip',
    ]);
    // The client's copy is still good: 304, no body.
    const again = await get(
      `${new URL(indexUrl()).origin}${new URL(indexUrl()).pathname.startsWith('/pay') ? '/pay' : ''}/favicon.svg`,
      {
        'accept-encoding': 'gzip',
        'if-none-match': String(icon.headers.etag),
      },
    );
    expect([again.status, again.body.length]).toEqual([304, 0]);
  });
});

/**
 * The cabinet's page is the bundle `npm run build` makes: the listener serves it, and a start
 * without it stops with a message naming the build, before anything listens.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { registerPage, requireBuiltPage } from '../../src/cabinet/page.js';
import type { ApiServer } from '../../src/http/server.js';
import { startCabinetApp, type CabinetTestApp } from './helpers.js';

let t: CabinetTestApp | undefined;
afterAll(async () => t?.close());

describe('the built cabinet page', () => {
  it('is served with its bundle under a hashed name, under the strict CSP', async () => {
    t = await startCabinetApp();
    const index = await fetch(`${t.cabinet}/`);
    expect(index.status).toBe(200);
    const script = /src="(\/app-[A-Z0-9]{8}\.js)"/.exec(await index.text())?.[1];
    expect(script).toBeDefined();
    const bundle = await fetch(`${t.cabinet}${script}`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    expect(bundle.headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it("names the instance's chain for the explorer links: none on the devnet, Nile's Tronscan on Nile", async () => {
    const devnet = await (await fetch(`${t?.cabinet}/`)).text();
    expect(devnet).toMatch(/<meta name="paygate-network" content="(devnet|mainnet)" \/>/);
    // The page's routes alone, as an instance on Nile registers them.
    const nile = Fastify();
    try {
      await registerPage(nile as unknown as ApiServer, 'nile');
      for (const url of ['/', '/index.html'])
        expect((await nile.inject(url)).body).toContain('<meta name="paygate-network" content="nile" />');
    } finally {
      await nile.close();
    }
  });

  it('is required before a start: an empty folder names `npm run build`', () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'paygate-web-'));
    try {
      expect(() => requireBuiltPage(empty)).toThrow(/npm run build/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

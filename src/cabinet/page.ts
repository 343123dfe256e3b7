/**
 * The cabinet's web page: plain HTML, CSS and ES modules from web/cabinet/, shipped as they are (no
 * build step) and found from the package root, so `bin/dev.js` and the built `bin/run.js` serve the
 * same files. Each file is its own route (no wildcard), so any other path is route_not_found.
 */
import fastifyStatic from '@fastify/static';
import path from 'node:path';
import type { ApiServer } from '../http/server.js';
import { packageRoot } from '../paths.js';

export const PAGE_DIR = () => path.join(packageRoot(), 'web', 'cabinet');

/**
 * Nothing loads from outside the listener, no inline script or style runs, and no other site may
 * frame the page or read its answers.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

export async function registerPage(app: ApiServer): Promise<void> {
  await app.register(fastifyStatic, {
    root: PAGE_DIR(),
    prefix: '/',
    wildcard: false,
    index: 'index.html',
    serveDotFiles: false,
    // The page is small and changes with each release: always revalidated, never stale.
    cacheControl: false,
    setHeaders: (res) => res.setHeader('cache-control', 'no-cache'),
  });
}

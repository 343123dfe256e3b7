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

export async function registerPage(app: ApiServer): Promise<void> {
  await app.register(async (scope) => {
    // The page's files are the same for everyone: no session is asked for them.
    scope.addHook('onRoute', (route) => {
      route.config = { ...route.config, public: true };
    });
    await scope.register(fastifyStatic, {
      root: PAGE_DIR(),
      prefix: '/',
      wildcard: false,
      index: 'index.html',
      serveDotFiles: false,
      // The page is small and changes with each release: always revalidated, never stale.
      cacheControl: false,
      setHeaders: (res) => res.setHeader('cache-control', 'no-cache'),
    });
  });
}

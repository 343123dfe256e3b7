/**
 * The cabinet's web page: the bundle `npm run build` makes from web/cabinet (scripts/build-web.ts)
 * in dist/web/cabinet, found from the package root, so `bin/dev.js` and the built `bin/run.js` serve
 * the same files, through the one static server of the pages (src/http/static.ts). Each file is its
 * own route (no wildcard), so any other path is route_not_found.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { TronNetwork } from '../config.js';
import type { ApiServer } from '../http/server.js';
import { registerStaticFolder, sendStatic, staticText, type StaticFile } from '../http/static.js';
import { packageRoot } from '../paths.js';

export const PAGE_DIR = () => path.join(packageRoot(), 'dist', 'web', 'cabinet');

/**
 * Called before the cabinet listens: without the built page the listener would serve nothing to
 * owners, so the start stops here, saying how to build it. (Building the server without
 * listening, as for its OpenAPI document, needs no page.)
 */
export function requireBuiltPage(dir = PAGE_DIR()): void {
  const bundled = existsSync(dir) && readdirSync(dir).some((name) => /^app-[A-Z0-9]{8}\.js$/.test(name));
  if (!existsSync(path.join(dir, 'index.html')) || !bundled)
    throw new Error(`the cabinet's web page is not built (${dir} is missing): run \`npm run build\``);
}

/**
 * index.html with the chain this instance watches in its `paygate-network` meta element: the page
 * links transactions and addresses to that network's explorer (none for the devnet) without a
 * request of its own. Read once, at the first request.
 */
function indexPage(network: TronNetwork): () => StaticFile {
  let html: StaticFile | null = null;
  return () =>
    (html ??= staticText(
      'index.html',
      readFileSync(path.join(PAGE_DIR(), 'index.html'), 'utf8').replace(
        '<meta name="paygate-network" content="" />',
        `<meta name="paygate-network" content="${network}" />`,
      ),
    ));
}

export async function registerPage(app: ApiServer, network: TronNetwork): Promise<void> {
  const index = indexPage(network);
  await app.register(async (scope) => {
    // The page's files are the same for everyone: no session is asked for them.
    scope.addHook('onRoute', (route) => {
      route.config = { ...route.config, public: true };
    });
    for (const url of ['/', '/index.html'])
      scope.get(url, { schema: { hide: true } }, async (req, reply) => sendStatic(req, reply, index()));
    // The one static server of the pages: precompressed files, hashed names cached a year.
    registerStaticFolder(scope, { root: PAGE_DIR(), prefix: '/', exclude: ['index.html'] });
  });
}

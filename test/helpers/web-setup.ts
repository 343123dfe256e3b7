/**
 * The web pages bundled once for the run (esbuild, under a second): the servers serve dist/web and
 * refuse to start without it, so `npm ci && npm test` works with no build step before.
 */
import { buildWeb } from '../../scripts/build-web.js';

export default async function setup(): Promise<void> {
  await buildWeb();
}

/**
 * Module loader hooks (registered with node:module's register()) that append every URL the process
 * resolves to the file named in `data.file`, one a line: how test/unit/serve-module-graph.test.ts
 * sees which modules `serve` loads. Plain JavaScript: hooks load before tsx can help.
 */
import { appendFileSync } from 'node:fs';

let file = '';

export function initialize(data) {
  file = data.file;
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(file, `${resolved.url}\n`);
  return resolved;
}

/**
 * The web pages' bundles: each page's TypeScript entry bundled by esbuild (minified, with a
 * sourcemap) to `<outDir>/<page>/app.js`, beside the page's static files. `npm run build` runs it
 * after tsc; the servers serve `dist/web/<page>/` and refuse to start without it.
 *   node --import tsx scripts/build-web.ts [outDir]
 */
import { build } from 'esbuild';
import { copyFileSync, cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface WebPage {
  /** The folder under web/ and under the output. */
  name: string;
  /** The TypeScript entry, relative to the page's folder. */
  entry: string;
}

/** The pages; one line each. Each page's folder holds index.html, style.css and favicon.svg. */
export const PAGES: WebPage[] = [
  { name: 'cabinet', entry: 'src/main.ts' },
  { name: 'pay', entry: 'src/main.tsx' },
];

const STATIC_FILES = ['index.html', 'style.css', 'favicon.svg'];
/** Folders copied whole: the payment page's language catalogs, fetched by the page when wanted. */
const STATIC_DIRS = ['i18n'];
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export async function buildWeb(outDir = 'dist/web'): Promise<void> {
  const out = path.resolve(root, outDir);
  for (const page of PAGES) {
    const source = path.join(root, 'web', page.name);
    const target = path.join(out, page.name);
    rmSync(target, { recursive: true, force: true });
    mkdirSync(target, { recursive: true });
    await build({
      entryPoints: [path.join(source, page.entry)],
      outfile: path.join(target, 'app.js'),
      bundle: true,
      minify: true,
      sourcemap: true,
      format: 'esm',
      target: ['es2022'],
      jsx: 'automatic',
      jsxImportSource: 'preact',
      legalComments: 'none',
      // The catalogs' letters as they are (UTF-8), not six-byte escapes.
      charset: 'utf8',
      logLevel: 'warning',
    });
    for (const file of STATIC_FILES)
      if (existsSync(path.join(source, file))) copyFileSync(path.join(source, file), path.join(target, file));
    for (const dir of STATIC_DIRS)
      if (existsSync(path.join(source, dir)))
        cpSync(path.join(source, dir), path.join(target, dir), { recursive: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildWeb(process.argv[2]);
}

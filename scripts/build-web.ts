/**
 * The web pages' bundles: each page's TypeScript entry bundled by esbuild (minified, with a
 * sourcemap) to `<outDir>/<page>/app-<hash>.js`, beside the page's static files; the style sheet is
 * named by its content's hash too, and index.html names both, so the server caches the hashed
 * files a year (src/http/static.ts). Every text file gets brotli and gzip copies beside it
 * (`name.br`, `name.gz`), made here once instead of on each request. `npm run build` runs it after
 * tsc; the servers serve `dist/web/<page>/` and refuse to start without it.
 *   node --import tsx scripts/build-web.ts [outDir]
 */
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

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

const STATIC_FILES = ['favicon.svg'];
/** What gets compressed copies: text (images such as PNG are compressed already). */
const COMPRESSED = /\.(html|js|css|json|svg|map|txt)$/;
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
    const result = await build({
      entryPoints: { app: path.join(source, page.entry) },
      outdir: target,
      entryNames: '[name]-[hash]',
      metafile: true,
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
    const script = Object.keys(result.metafile.outputs)
      .map((file) => path.basename(file))
      .find((name) => name.endsWith('.js')) as string;
    const css = readFileSync(path.join(source, 'style.css'));
    const style = `style-${hashOf(css)}.css`;
    writeFileSync(path.join(target, style), css);
    const html = readFileSync(path.join(source, 'index.html'), 'utf8')
      .replaceAll('/app.js"', `/${script}"`)
      .replaceAll('/style.css"', `/${style}"`);
    writeFileSync(path.join(target, 'index.html'), html);
    for (const file of STATIC_FILES)
      if (existsSync(path.join(source, file))) cpSync(path.join(source, file), path.join(target, file));
    for (const dir of STATIC_DIRS)
      if (existsSync(path.join(source, dir)))
        cpSync(path.join(source, dir), path.join(target, dir), { recursive: true });
    compressAll(target);
  }
}

/** Eight letters and digits of the content's hash, as esbuild names the bundle. */
const hashOf = (content: Buffer) =>
  createHash('sha256')
    .update(content)
    .digest('base64url')
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, 8)
    .toUpperCase();

/** Brotli (best) and gzip (best) copies beside every text file of the folder. */
function compressAll(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) compressAll(file);
    else if (COMPRESSED.test(entry.name)) {
      const raw = readFileSync(file);
      writeFileSync(
        `${file}.br`,
        brotliCompressSync(raw, {
          params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
        }),
      );
      writeFileSync(`${file}.gz`, gzipSync(raw, { level: 9 }));
    }
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildWeb(process.argv[2]);
}

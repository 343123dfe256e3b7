/**
 * The one static server of the web pages (the cabinet's and the payment page's): every file of a
 * built folder is a route of its own (no wildcard, so any other path stays route_not_found), read
 * once at registration with the brotli and gzip copies the build writes beside it
 * (scripts/build-web.ts), and answered in the encoding the client accepts (`Vary:
 * Accept-Encoding`). Names with a content hash (`app-3FQ7KX2M.js`) are cached a year, immutable;
 * the others (HTML, catalogs, icon) are revalidated each time by their ETag.
 * Kept here instead of @fastify/static: it neither picks precompressed files by Accept-Encoding
 * with the cache rules by name nor serves HTML that a server rewrote; the header's negotiation is
 * @fastify/accept-negotiator's.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { negotiate } from '@fastify/accept-negotiator';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
};

/** A name the build gave a content hash (esbuild's `[hash]`, eight letters and digits). */
export const HASHED_NAME = /-[A-Z0-9]{8}\.[a-z]+(\.map)?$/;

export const IMMUTABLE = 'public, max-age=31536000, immutable';
export const REVALIDATE = 'no-cache';

type Encoding = 'br' | 'gzip';

/** One file as served: its bytes in each encoding there is, its type, its cache rule. */
export interface StaticFile {
  type: string;
  cacheControl: string;
  etag: string;
  identity: Buffer;
  encoded: Partial<Record<Encoding, Buffer>>;
}

const etagOf = (body: Buffer) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;

function staticFile(name: string, identity: Buffer, encoded: StaticFile['encoded']): StaticFile {
  return {
    type: TYPES[path.extname(name)] ?? 'application/octet-stream',
    cacheControl: HASHED_NAME.test(name) ? IMMUTABLE : REVALIDATE,
    etag: etagOf(identity),
    identity,
    encoded,
  };
}

/** A file of the folder with the copies the build made beside it (`name.br`, `name.gz`). */
export function readStaticFile(file: string): StaticFile {
  const encoded: StaticFile['encoded'] = {};
  if (existsSync(`${file}.br`)) encoded.br = readFileSync(`${file}.br`);
  if (existsSync(`${file}.gz`)) encoded.gzip = readFileSync(`${file}.gz`);
  return staticFile(path.basename(file), readFileSync(file), encoded);
}

/** Text a server made (an index.html it filled in), compressed once, here, as the build would. */
export function staticText(name: string, text: string): StaticFile {
  const identity = Buffer.from(text, 'utf8');
  return staticFile(name, identity, { br: brotliCompressSync(identity), gzip: gzipSync(identity) });
}

/**
 * The encoding to answer in, of those the file has: the client's preferred by its q-values
 * (@fastify/accept-negotiator), brotli before gzip when it likes both alike.
 */
export function pickEncoding(header: string | undefined, file: StaticFile): Encoding | null {
  const available = (['br', 'gzip'] as const).filter((e) => file.encoded[e]);
  return negotiate(header ?? '', [...available]);
}

/** Answers `file`: its encoding by Accept-Encoding, its cache rule, 304 when the client has it. */
export function sendStatic(req: FastifyRequest, reply: FastifyReply, file: StaticFile): FastifyReply {
  const encoding = pickEncoding(req.headers['accept-encoding'], file);
  const etag = encoding ? `${file.etag.slice(0, -1)}-${encoding}"` : file.etag;
  reply.header('content-type', file.type).header('cache-control', file.cacheControl).header('etag', etag);
  reply.header('vary', 'Accept-Encoding');
  const wanted = req.headers['if-none-match'];
  if (wanted && wanted.split(',').some((tag) => tag.trim() === etag)) return reply.code(304).send();
  if (encoding) reply.header('content-encoding', encoding);
  return reply.send(encoding ? file.encoded[encoding] : file.identity);
}

/** The folder's files, relative, with '/' between parts; the build's compressed copies left out. */
function filesOf(root: string, dir = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...filesOf(root, rel));
    else if (!entry.name.endsWith('.br') && !entry.name.endsWith('.gz')) out.push(rel);
  }
  return out;
}

export interface StaticFolder {
  /** The built folder; nothing is registered when it is absent (a server built only for its document). */
  root: string;
  /** The URL prefix, ending in '/'. */
  prefix: string;
  /** Files the caller answers itself (an index.html it fills in). */
  exclude?: string[];
}

/** Every file of the folder as a GET (and HEAD) route of its own under the prefix. */
export function registerStaticFolder(app: FastifyInstance, folder: StaticFolder): void {
  if (!existsSync(folder.root)) return;
  for (const rel of filesOf(folder.root)) {
    if (folder.exclude?.includes(rel)) continue;
    const file = readStaticFile(path.join(folder.root, rel));
    app.get(`${folder.prefix}${rel}`, { schema: { hide: true } }, async (req, reply) => sendStatic(req, reply, file));
  }
}

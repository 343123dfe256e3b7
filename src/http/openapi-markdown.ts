/**
 * docs/api.md from the OpenAPI document (`npm run docs`; a test fails when the file is stale).
 * Generic over the document: operations grouped by tag, request and response bodies as field
 * tables (nested objects flattened to dotted names), each titled schema once at the end, and the
 * document's `webhooks` when it has them. Output is deterministic: same document, same bytes.
 */
import type { OpenApiDocument } from './openapi-doc.js';

type Json = OpenApiDocument;

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

const escapeCell = (s: string) => s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

function resolve(doc: Json, schema: Json): Json {
  const ref = schema?.$ref as string | undefined;
  if (!ref?.startsWith('#/')) return schema;
  return ref
    .slice(2)
    .split('/')
    .reduce<Json>((node, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

/** A short type text: `string (uuid)`, `"a" | "b"`, `Invoice[]`, `string or null`. */
function typeOf(doc: Json, raw: Json): string {
  const s = resolve(doc, raw);
  if (!s) return 'any';
  if (s.title && s.type === 'object') return s.title as string;
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return s.enum.map((v: unknown) => JSON.stringify(v)).join(' | ');
  const alternatives = (s.anyOf ?? s.oneOf) as Json[] | undefined;
  if (alternatives) {
    const enums = alternatives.map((a) => resolve(doc, a)).filter((a) => Array.isArray(a.enum) && a.enum.length === 1);
    if (enums.length === alternatives.length) return enums.map((a) => JSON.stringify(a.enum[0])).join(' | ');
    return alternatives.map((a) => typeOf(doc, a)).join(' or ');
  }
  if (s.type === 'array') {
    const item = typeOf(doc, s.items ?? {});
    return item.includes(' ') ? `(${item})[]` : `${item}[]`;
  }
  if (s.type === 'null') return 'null';
  return s.format ? `${s.type} (${s.format})` : String(s.type ?? 'any');
}

/** Constraints worth a reader's attention, in words. */
function constraints(s: Json): string {
  const parts: string[] = [];
  if (s.minLength !== undefined || s.maxLength !== undefined)
    parts.push(`length ${s.minLength ?? 0} to ${s.maxLength ?? '∞'}`);
  if (s.minimum !== undefined || s.maximum !== undefined) parts.push(`${s.minimum ?? '−∞'} to ${s.maximum ?? '∞'}`);
  if (s.pattern) parts.push(`pattern \`${s.pattern}\``);
  return parts.join('; ');
}

interface Row {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

/** The fields of an object schema; nested untitled objects become `parent.child` rows. */
function fieldRows(doc: Json, raw: Json, prefix = ''): Row[] {
  const s = resolve(doc, raw);
  const required = new Set<string>(s?.required ?? []);
  const rows: Row[] = [];
  for (const [name, propRaw] of Object.entries<Json>(s?.properties ?? {})) {
    const prop = resolve(doc, propRaw);
    const nested = prop.type === 'object' && !prop.title && prop.properties;
    const description = [prop.description, constraints(prop)].filter(Boolean).join('. ');
    rows.push({
      name: prefix + name,
      type: nested ? 'object' : typeOf(doc, prop),
      required: required.has(name),
      description,
    });
    if (nested) rows.push(...fieldRows(doc, prop, `${prefix}${name}.`));
  }
  return rows;
}

function fieldTable(rows: Row[]): string[] {
  if (rows.length === 0) return ['(no fields)', ''];
  return [
    '| Field | Type | Required | Description |',
    '| --- | --- | --- | --- |',
    ...rows.map(
      (r) => `| \`${r.name}\` | ${escapeCell(r.type)} | ${r.required ? 'yes' : 'no'} | ${escapeCell(r.description)} |`,
    ),
    '',
  ];
}

/** Every titled object schema reachable from the document, by title, for the Schemas section. */
function collectSchemas(doc: Json, node: unknown, found: Map<string, Json>): void {
  if (Array.isArray(node)) return node.forEach((n) => collectSchemas(doc, n, found));
  if (!node || typeof node !== 'object') return;
  const s = node as Json;
  if (s.type === 'object' && typeof s.title === 'string' && !found.has(s.title)) found.set(s.title, s);
  for (const v of Object.values(s)) collectSchemas(doc, v, found);
}

function bodySchema(content: Json | undefined): Json | undefined {
  return content?.['application/json']?.schema;
}

function operation(doc: Json, method: string, route: string, op: Json, level = '###'): string[] {
  const lines = [`${level} ${method.toUpperCase()} ${route}`, '', op.summary ? `${op.summary}.` : '', ''];
  if (op.description) lines.push(op.description, '');
  if (op.operationId) lines.push(`Operation id: \`${op.operationId}\`.`, '');
  if (Array.isArray(op.security) && op.security.length === 0) lines.push('No credentials needed.', '');
  const params = (op.parameters ?? []) as Json[];
  if (params.length > 0) {
    lines.push('Parameters:', '', '| Name | In | Type | Required | Description |', '| --- | --- | --- | --- | --- |');
    for (const p of params) {
      const description = [p.description, constraints(p.schema ?? {})].filter(Boolean).join('. ');
      lines.push(
        `| \`${p.name}\` | ${p.in} | ${escapeCell(typeOf(doc, p.schema ?? {}))} | ${p.required ? 'yes' : 'no'} | ${escapeCell(description)} |`,
      );
    }
    lines.push('');
  }
  const request = bodySchema(op.requestBody?.content);
  if (request) {
    const s = resolve(doc, request);
    const strict = s.additionalProperties === false ? ' (no other properties allowed)' : '';
    lines.push(`Request body \`${s.title ?? 'object'}\`${strict}:`, '', ...fieldTable(fieldRows(doc, s)));
  }
  lines.push('Responses:', '', '| Status | Body | Meaning |', '| --- | --- | --- |');
  for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
    const schema = bodySchema(response.content);
    lines.push(
      `| ${status} | ${schema ? escapeCell(typeOf(doc, schema)) : '-'} | ${escapeCell(response.description ?? '')} |`,
    );
  }
  lines.push('');
  return lines;
}

/** A security scheme in words: the `X-Api-Key` header (apiKey), `Authorization: Bearer …` (op_…). */
function schemeText(s: Json): string {
  if (s.type === 'http')
    return `the \`Authorization: ${s.scheme[0].toUpperCase()}${s.scheme.slice(1)} …\` header${s.bearerFormat ? ` (\`${s.bearerFormat}\`)` : ''}`;
  return `the \`${s.name}\` ${s.in} (${s.type})`;
}

/** Where the document itself is served: the common prefix of its paths, then /openapi.json. */
function documentPath(doc: Json): string {
  const first = Object.keys(doc.paths ?? {})[0] ?? '/v1/';
  const prefix = /^\/(admin\/|cabinet\/|pay\/)?v\d+\//.exec(first)?.[0] ?? '/v1/';
  return `${prefix}openapi.json`;
}

/** Whether some operation needs no credentials (`security: []`). */
function publicOps(doc: Json): boolean {
  return Object.values<Json>(doc.paths ?? {}).some((item) =>
    METHODS.some((m) => Array.isArray(item[m]?.security) && item[m].security.length === 0),
  );
}

function header(doc: Json): string[] {
  const info = doc.info ?? {};
  const servers = ((doc.servers ?? []) as Json[]).map((s) => `\`${s.url}\``).join(', ');
  const schemes = Object.values<Json>(doc.components?.securitySchemes ?? {}).map(schemeText);
  const credential = Object.values<Json>(doc.components?.securitySchemes ?? {}).some((s) => s.type === 'http')
    ? 'token'
    : 'key';
  return [
    `# ${info.title} (version ${info.version})`,
    '',
    '<!-- Generated from the OpenAPI document by `npm run docs`; do not edit by hand. -->',
    '',
    info.description ?? '',
    '',
    `OpenAPI ${doc.openapi}; the document itself is served at \`GET ${documentPath(doc)}\` (no ${credential} needed).`,
    servers ? `Servers: ${servers}.` : '',
    schemes.length > 0
      ? // Entries of the document's `security` are alternatives: any one of them will do.
        `Authentication: ${schemes.join((doc.security ?? []).length > 1 ? ' or ' : ', ')} on every operation${publicOps(doc) ? ' not marked “No credentials needed”' : ''}.`
      : '',
    '',
  ];
}

function headersSection(doc: Json): string[] {
  const first = Object.values<Json>(doc.paths ?? {})
    .flatMap((item) => METHODS.map((m) => item[m]).filter(Boolean))
    .flatMap((op: Json) => Object.values<Json>(op.responses ?? {}))[0];
  const headers = Object.entries<Json>(first?.headers ?? {});
  if (headers.length === 0) return [];
  return [
    '## Headers on every response',
    '',
    '| Header | Type | Description |',
    '| --- | --- | --- |',
    ...headers.map(
      ([name, h]) => `| \`${name}\` | ${typeOf(doc, h.schema ?? {})} | ${escapeCell(h.description ?? '')} |`,
    ),
    '',
    'A 429 answer also carries `Retry-After` (seconds to wait).',
    '',
  ];
}

function operationsSection(doc: Json): string[] {
  const tags = ((doc.tags ?? []) as Json[]).map((t) => ({
    name: t.name as string,
    description: t.description as string | undefined,
  }));
  const lines: string[] = [];
  const untagged: string[] = [];
  const byTag = new Map<string, string[]>(tags.map((t) => [t.name, []]));
  for (const [route, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const rendered = operation(doc, method, route, op);
      const tag = (op.tags ?? [])[0] as string | undefined;
      (tag && byTag.has(tag) ? (byTag.get(tag) as string[]) : untagged).push(...rendered);
    }
  }
  for (const t of tags) {
    lines.push(`## ${t.name[0]?.toUpperCase()}${t.name.slice(1)}`, '');
    if (t.description) lines.push(`${t.description}.`, '');
    lines.push(...(byTag.get(t.name) ?? []));
  }
  if (untagged.length > 0) lines.push('## Other operations', '', ...untagged);
  return lines;
}

function webhooksSection(doc: Json): string[] {
  const hooks = Object.entries<Json>(doc.webhooks ?? {});
  if (hooks.length === 0) return [];
  const lines = ['## Webhook events', '', "Requests paygate sends to the merchant's endpoint.", ''];
  for (const [name, item] of hooks) {
    for (const method of METHODS)
      if (item[method]) lines.push(...operation(doc, method, `\`${name}\``, item[method], '###'));
  }
  return lines;
}

function schemasSection(doc: Json): string[] {
  const found = new Map<string, Json>();
  collectSchemas(doc, doc.paths, found);
  collectSchemas(doc, doc.webhooks, found);
  collectSchemas(doc, doc.components, found);
  const lines = ['## Schemas', ''];
  for (const title of [...found.keys()].sort()) {
    const s = found.get(title) as Json;
    lines.push(`### ${title}`, '');
    if (s.description) lines.push(s.description, '');
    lines.push(...fieldTable(fieldRows(doc, s)));
  }
  return lines;
}

export function renderApiMarkdown(doc: Json): string {
  const lines = [
    ...header(doc),
    ...headersSection(doc),
    ...operationsSection(doc),
    ...webhooksSection(doc),
    ...schemasSection(doc),
  ];
  // Collapse the blank runs left by empty optional lines; one newline at the end.
  return `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}

/**
 * Checks an answer against an OpenAPI document: the operation is found from the method and the
 * concrete path, the status must be one the operation documents, and the body must validate
 * (ajv) against that status's response schema. The document's `$ref`s point at its components;
 * they are inlined before compiling, so each response schema compiles on its own.
 */
import Ajv from 'ajv';

type Json = Record<string, any>;

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function inline(doc: Json, node: unknown): unknown {
  if (Array.isArray(node)) return node.map((n) => inline(doc, n));
  if (!node || typeof node !== 'object') return node;
  const s = node as Json;
  if (typeof s.$ref === 'string' && s.$ref.startsWith('#/')) {
    const target = s.$ref
      .slice(2)
      .split('/')
      .reduce<Json>((n, k) => n?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    return inline(doc, target);
  }
  return Object.fromEntries(
    Object.entries(s)
      .filter(([k]) => k !== '$id')
      .map(([k, v]) => [k, inline(doc, v)]),
  );
}

export interface Operation {
  method: string;
  template: string;
  op: Json;
}

/** Every operation of the document. */
export function operations(doc: Json): Operation[] {
  const out: Operation[] = [];
  for (const [template, item] of Object.entries<Json>(doc.paths ?? {}))
    for (const method of METHODS) if (item[method]) out.push({ method, template, op: item[method] });
  return out;
}

/** The operation a request reaches; a static path wins over a template with parameters. */
export function operationOf(doc: Json, method: string, url: string): Operation | null {
  const path = url.split('?')[0] as string;
  const found = operations(doc)
    .filter((o) => o.method === method.toLowerCase())
    .filter((o) => new RegExp(`^${o.template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path))
    .sort((a, b) => a.template.split('{').length - b.template.split('{').length);
  return found[0] ?? null;
}

export class ResponseChecker {
  private readonly ajv = new Ajv({ allErrors: true, validateSchema: false });
  private readonly compiled = new Map<string, Ajv.ValidateFunction>();

  constructor(readonly doc: Json) {}

  /**
   * Throws when the answer is not what the document says this operation answers. `mediaType`: the
   * answer's content type without parameters (default JSON); a text answer is checked as a string.
   */
  check(method: string, url: string, status: number, body: unknown, mediaType = 'application/json'): void {
    const o = operationOf(this.doc, method, url);
    if (!o) {
      if (status !== 404) throw new Error(`${method} ${url}: no operation in the document, answered ${status}`);
      return;
    }
    const response = o.op.responses?.[String(status)];
    if (!response) throw new Error(`${method} ${o.template}: status ${status} is not documented`);
    if (response.content && !response.content[mediaType])
      throw new Error(`${method} ${o.template}: ${status} answered ${mediaType}, which is not documented`);
    const schema = response.content?.[mediaType]?.schema;
    if (!schema) return;
    const key = `${o.method} ${o.template} ${status} ${mediaType}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(inline(this.doc, schema) as object);
      this.compiled.set(key, validate);
    }
    if (!validate(body))
      throw new Error(
        `${key}: the body does not match the document: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`,
      );
  }
}

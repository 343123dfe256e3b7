/**
 * JSON.parse of an answer's bytes that builds only the parts the caller will read.
 *
 * A range of 100 mainnet blocks is about 35 MB of JSON, and the watcher reads a few fields of each
 * transaction: its id, its result, its contract's type, and for TRX transfers the receiver, owner
 * and amount. Most of the bytes are signatures, `raw_data_hex` and call data, which
 * TextDecoder + JSON.parse would turn into a 35 MB string and then into tens of thousands of
 * strings, only for the prune step (prune.ts) to drop them. Here the bytes are read once, in
 * place: the kept parts are built as JSON.parse builds them, the rest is checked and stepped over.
 *
 * The contract, tested byte for byte against TextDecoder + JSON.parse (test/chain/project-json.test.ts):
 * - the input is refused (SyntaxError) whenever JSON.parse of its UTF-8 decoding would refuse it,
 *   skipped parts included: bad tokens, bad escapes, control characters in strings, trailing
 *   bytes, truncation. The grammar is checked; only invalid UTF-8 is let through, as TextDecoder
 *   lets it through (as U+FFFD);
 * - a kept value is the value JSON.parse gives (last duplicate key wins, `__proto__` an own key);
 * - a projection says what to keep: `true` keeps a value whole; `{key: p, …}` keeps those keys of
 *   an object (`'*': p` keeps every other key too); `[p]` keeps every element of an array as `p`
 *   says, and `[p, f]` keeps `f(element)` instead, called as each element is read (so a large
 *   array's elements are reduced while young, not all built first). A value whose type is not the
 *   one its projection expects is kept whole, so a caller that checks types (prune.ts does) sees
 *   what it would have seen in the full answer.
 * It may also refuse an input JSON.parse accepts, in one way only: nesting too deep for the
 * stack (RangeError). The caller then parses the usual way (parse-worker.ts).
 *
 * Self-contained (no imports, no closures over module state): the parse worker evaluates its text.
 */

/* eslint-disable @typescript-eslint/no-explicit-any */

/** What to keep of a JSON value; see projectJson. */
export type Projection = true | readonly [Projection, ((element: any) => unknown)?] | { readonly [key: string]: Projection };

export function projectJson(bytes: Uint8Array, projection: Projection): unknown {
  const b = bytes;
  const n = b.length;
  let i = 0;
  let decoder: { decode(input: Uint8Array): string } | null = null;
  // Plain ASCII read as latin1: a short string without a view object or UTF-8's checks.
  const latin1 = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  const fail = (what: string): never => {
    throw new SyntaxError(`${what} at byte ${i} of the answer`);
  };
  // Byte classes inside a string: 0 plain ASCII, 1 quote, 2 backslash, 3 control (refused), 4 non-ASCII.
  const cls = new Uint8Array(256);
  for (let c = 0; c < 32; c++) cls[c] = 3;
  cls[34] = 1;
  cls[92] = 2;
  for (let c = 128; c < 256; c++) cls[c] = 4;
  const hex = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

  // A projection compiled: kind 0 keeps the value whole, 1 an object's listed keys, 2 an array's elements.
  interface Node {
    kind: number;
    names: string[];
    keys: Uint8Array[];
    subs: Node[];
    star: Node | null;
    item: Node | null;
    map: ((element: any) => unknown) | null;
  }
  const WHOLE: Node = { kind: 0, names: [], keys: [], subs: [], star: null, item: null, map: null };
  const compile = (p: any): Node => {
    if (p === true) return WHOLE;
    if (Array.isArray(p)) return { kind: 2, names: [], keys: [], subs: [], star: null, item: compile(p[0]), map: typeof p[1] === 'function' ? p[1] : null };
    const names = Object.keys(p).filter((k) => k !== '*');
    const encoder = new TextEncoder();
    return { kind: 1, names, keys: names.map((k) => encoder.encode(k)), subs: names.map((k) => compile(p[k])), star: '*' in p ? compile(p['*']) : null, item: null, map: null };
  };

  const ws = () => {
    let j = i;
    let c = b[j];
    while (c === 32 || c === 10 || c === 13 || c === 9) c = b[++j];
    i = j;
  };
  /** Steps over the string at i (its opening quote); true when it is plain ASCII without escapes. */
  const scanString = (): boolean => {
    let j = i + 1;
    let plain = true;
    for (;;) {
      if (j >= n) {
        i = j;
        fail('unterminated string');
      }
      const k = cls[b[j] as number];
      if (k === 0) {
        j++;
        continue;
      }
      if (k === 1) break;
      if (k === 4) {
        plain = false;
        j++;
        continue;
      }
      if (k === 3) {
        i = j;
        fail('control character in a string');
      }
      plain = false; // a backslash
      const e = b[j + 1];
      if (e === 117) {
        if (!(hex(b[j + 2] as number) && hex(b[j + 3] as number) && hex(b[j + 4] as number) && hex(b[j + 5] as number))) {
          i = j;
          fail('bad \\u escape');
        }
        j += 6;
      } else if (e === 34 || e === 92 || e === 47 || e === 98 || e === 102 || e === 110 || e === 114 || e === 116) j += 2;
      else {
        i = j;
        fail('bad escape');
      }
    }
    i = j + 1;
    return plain;
  };
  /** Plain ASCII bytes as a string. */
  const text = (start: number, end: number): string => latin1.toString('latin1', start, end);
  const utf8 = (start: number, end: number): string => {
    decoder ??= new TextDecoder();
    return decoder.decode(b.subarray(start, end));
  };
  /** The string at i, read the way JSON.parse reads it (escapes, UTF-8). */
  const string = (): string => {
    const start = i;
    if (scanString()) return text(start + 1, i - 1);
    return JSON.parse(utf8(start, i)) as string;
  };
  const digits = (j: number): number => {
    let c = b[j] as number;
    if (!(c >= 48 && c <= 57)) {
      i = j;
      fail('a digit expected');
    }
    do c = b[++j] as number;
    while (c >= 48 && c <= 57);
    return j;
  };
  /** Steps over the number at i; its value when `keep`. */
  const number = (keep: boolean): number => {
    const start = i;
    let j = i;
    if (b[j] === 45) j++;
    if (b[j] === 48) j++;
    else j = digits(j);
    let integer = true;
    if (b[j] === 46) {
      integer = false;
      j = digits(j + 1);
    }
    if (b[j] === 101 || b[j] === 69) {
      integer = false;
      j++;
      if (b[j] === 43 || b[j] === 45) j++;
      j = digits(j);
    }
    i = j;
    if (!keep) return 0;
    if (integer && j - start <= 15) {
      let v = 0;
      for (let k = b[start] === 45 ? start + 1 : start; k < j; k++) v = v * 10 + ((b[k] as number) - 48);
      return b[start] === 45 ? -v : v;
    }
    return Number(text(start, j));
  };
  const literal = (word: string, v: unknown): unknown => {
    for (let k = 0; k < word.length; k++) if (b[i + k] !== word.charCodeAt(k)) fail('unexpected token');
    i += word.length;
    return v;
  };
  const put = (o: any, k: string, v: unknown) => {
    if (k === '__proto__') Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
    else o[k] = v;
  };
  /** The key at i matched against an object projection's names: its index, or -1. */
  const which = (node: Node): number => {
    const start = i;
    if (!scanString()) return node.names.indexOf(JSON.parse(utf8(start, i)) as string);
    const len = i - start - 2;
    for (let x = 0; x < node.keys.length; x++) {
      const key = node.keys[x] as Uint8Array;
      if (key.length !== len) continue;
      let y = 0;
      while (y < len && key[y] === b[start + 1 + y]) y++;
      if (y === len) return x;
    }
    return -1;
  };
  const colon = () => {
    ws();
    if (b[i] !== 58) fail('":" expected');
    i++;
    ws();
  };
  /** After a member or element: true at a comma (stepped over), false at `close` (stepped over). */
  const next = (close: number): boolean => {
    ws();
    const c = b[i];
    if (c === 44) {
      i++;
      ws();
      return true;
    }
    if (c !== close) fail(close === 125 ? '"," or "}" expected' : '"," or "]" expected');
    i++;
    return false;
  };

  const skip = (): void => {
    const c = b[i];
    if (c === 34) scanString();
    else if (c === 123) {
      i++;
      ws();
      if (b[i] === 125) {
        i++;
        return;
      }
      do {
        if (b[i] !== 34) fail('a key expected');
        scanString();
        colon();
        skip();
      } while (next(125));
    } else if (c === 91) {
      i++;
      ws();
      if (b[i] === 93) {
        i++;
        return;
      }
      do skip();
      while (next(93));
    } else if (c === 45 || (c !== undefined && c >= 48 && c <= 57)) number(false);
    else if (c === 116) literal('true', true);
    else if (c === 102) literal('false', false);
    else if (c === 110) literal('null', null);
    else fail(c === undefined ? 'unexpected end' : 'unexpected token');
  };

  const value = (node: Node): unknown => {
    const c = b[i];
    if (c === 123) {
      i++;
      ws();
      const o: any = {};
      if (b[i] === 125) {
        i++;
        return o;
      }
      do {
        if (b[i] !== 34) fail('a key expected');
        if (node.kind !== 1) {
          const k = string();
          colon();
          put(o, k, value(WHOLE));
          continue;
        }
        const start = i;
        const x = which(node);
        const end = i;
        colon();
        if (x >= 0) put(o, node.names[x] as string, value(node.subs[x] as Node));
        else if (node.star !== null) put(o, JSON.parse(utf8(start, end)) as string, value(node.star));
        else skip();
      } while (next(125));
      return o;
    }
    if (c === 91) {
      i++;
      ws();
      const a: unknown[] = [];
      if (b[i] === 93) {
        i++;
        return a;
      }
      const item = node.kind === 2 ? (node.item as Node) : WHOLE;
      const map = node.kind === 2 ? node.map : null;
      do a.push(map === null ? value(item) : map(value(item)));
      while (next(93));
      return a;
    }
    if (c === 34) return string();
    if (c === 45 || (c !== undefined && c >= 48 && c <= 57)) return number(true);
    if (c === 116) return literal('true', true);
    if (c === 102) return literal('false', false);
    if (c === 110) return literal('null', null);
    return fail(c === undefined ? 'unexpected end' : 'unexpected token');
  };

  // TextDecoder drops a leading byte order mark; so does this.
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) i = 3;
  ws();
  const out = value(compile(projection));
  ws();
  if (i !== n) fail('unexpected bytes after the value');
  return out;
}

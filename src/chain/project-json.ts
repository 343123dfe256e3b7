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
 * Self-contained (no imports; projectJson and JsonReader refer only to each other): the parse
 * worker evaluates their text. A class, not closures made per call: V8 reuses one optimized code
 * for every answer (closures made anew each call ran at half the speed after the first answer).
 */

/* eslint-disable @typescript-eslint/no-explicit-any */

/** What to keep of a JSON value; see projectJson. */
export type Projection = true | readonly [Projection, ((element: any) => unknown)?] | { readonly [key: string]: Projection };

/** The value of `bytes` as JSON.parse of their UTF-8 would give it, with only what `projection` keeps. */
export function projectJson(bytes: Uint8Array, projection: Projection): unknown {
  return new JsonReader(bytes).read(projection);
}

/** A projection compiled: kind 0 keeps the value whole, 1 an object's listed keys, 2 an array's elements. */
interface Keep {
  kind: number;
  names: string[];
  keys: Uint8Array[];
  subs: Keep[];
  star: Keep | null;
  item: Keep | null;
  map: ((element: any) => unknown) | null;
}

/** One pass over one answer's bytes (projectJson). */
export class JsonReader {
  private readonly b: Uint8Array;
  private readonly n: number;
  private i = 0;
  /** Plain ASCII is read as latin1: a short string without a view object or UTF-8's checks. */
  private readonly latin1: Buffer;
  private decoder: { decode(input: Uint8Array): string } | null = null;
  private readonly whole: Keep = { kind: 0, names: [], keys: [], subs: [], star: null, item: null, map: null };
  /** Byte classes inside a string: 0 plain ASCII, 1 quote, 2 backslash, 3 control (refused), 4 non-ASCII. */
  private static readonly cls: Uint8Array = (() => {
    const cls = new Uint8Array(256);
    for (let c = 0; c < 32; c++) cls[c] = 3;
    cls[34] = 1;
    cls[92] = 2;
    for (let c = 128; c < 256; c++) cls[c] = 4;
    return cls;
  })();

  constructor(bytes: Uint8Array) {
    this.b = bytes;
    this.n = bytes.length;
    this.latin1 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  read(projection: Projection): unknown {
    const b = this.b;
    // TextDecoder drops a leading byte order mark; so does this.
    if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) this.i = 3;
    this.ws();
    const out = this.value(this.compile(projection));
    this.ws();
    if (this.i !== this.n) this.fail('unexpected bytes after the value');
    return out;
  }

  private compile(p: any): Keep {
    if (p === true) return this.whole;
    if (Array.isArray(p)) return { kind: 2, names: [], keys: [], subs: [], star: null, item: this.compile(p[0]), map: typeof p[1] === 'function' ? p[1] : null };
    const names = Object.keys(p).filter((k) => k !== '*');
    const encoder = new TextEncoder();
    return { kind: 1, names, keys: names.map((k) => encoder.encode(k)), subs: names.map((k) => this.compile(p[k])), star: '*' in p ? this.compile(p['*']) : null, item: null, map: null };
  }

  private fail(what: string): never {
    throw new SyntaxError(`${what} at byte ${this.i} of the answer`);
  }

  private ws(): void {
    const b = this.b;
    let j = this.i;
    let c = b[j] as number;
    if (c > 32) return; // compact JSON: no whitespace at all
    while (c === 32 || c === 10 || c === 13 || c === 9) c = b[++j] as number;
    this.i = j;
  }

  /** Steps over the string at i (its opening quote); true when it is plain ASCII without escapes. */
  private scanString(): boolean {
    const b = this.b;
    const n = this.n;
    const cls = JsonReader.cls;
    let j = this.i + 1;
    let plain = true;
    for (;;) {
      // The hot loop: most bytes of an answer are hex inside strings.
      while (j < n && cls[b[j] as number] === 0) j++;
      if (j >= n) {
        this.i = j;
        this.fail('unterminated string');
      }
      const k = cls[b[j] as number];
      if (k === 1) break;
      if (k === 4) {
        plain = false;
        j++;
        continue;
      }
      if (k === 3) {
        this.i = j;
        this.fail('control character in a string');
      }
      plain = false; // a backslash
      const e = b[j + 1];
      if (e === 117) {
        if (!(JsonReader.hex(b[j + 2]) && JsonReader.hex(b[j + 3]) && JsonReader.hex(b[j + 4]) && JsonReader.hex(b[j + 5]))) {
          this.i = j;
          this.fail('bad \\u escape');
        }
        j += 6;
      } else if (e === 34 || e === 92 || e === 47 || e === 98 || e === 102 || e === 110 || e === 114 || e === 116) j += 2;
      else {
        this.i = j;
        this.fail('bad escape');
      }
    }
    this.i = j + 1;
    return plain;
  }

  /** Plain ASCII bytes as a string. */
  private text(start: number, end: number): string {
    return this.latin1.toString('latin1', start, end);
  }

  private utf8(start: number, end: number): string {
    this.decoder ??= new TextDecoder();
    return this.decoder.decode(this.b.subarray(start, end));
  }

  /** The string at i, read the way JSON.parse reads it (escapes, UTF-8). */
  private string(): string {
    const start = this.i;
    if (this.scanString()) return this.text(start + 1, this.i - 1);
    return JSON.parse(this.utf8(start, this.i)) as string;
  }

  private digits(j: number): number {
    const b = this.b;
    let c = b[j] as number;
    if (!(c >= 48 && c <= 57)) {
      this.i = j;
      this.fail('a digit expected');
    }
    do c = b[++j] as number;
    while (c >= 48 && c <= 57);
    return j;
  }

  /** Steps over the number at i; its value when `keep`. */
  private number(keep: boolean): number {
    const b = this.b;
    const start = this.i;
    let j = start;
    if (b[j] === 45) j++;
    if (b[j] === 48) j++;
    else j = this.digits(j);
    let integer = true;
    if (b[j] === 46) {
      integer = false;
      j = this.digits(j + 1);
    }
    if (b[j] === 101 || b[j] === 69) {
      integer = false;
      j++;
      if (b[j] === 43 || b[j] === 45) j++;
      j = this.digits(j);
    }
    this.i = j;
    if (!keep) return 0;
    if (integer && j - start <= 15) {
      let v = 0;
      for (let k = b[start] === 45 ? start + 1 : start; k < j; k++) v = v * 10 + ((b[k] as number) - 48);
      return b[start] === 45 ? -v : v;
    }
    return Number(this.text(start, j));
  }

  private literal(word: string, v: unknown): unknown {
    for (let k = 0; k < word.length; k++) if (this.b[this.i + k] !== word.charCodeAt(k)) this.fail('unexpected token');
    this.i += word.length;
    return v;
  }

  /** The key at i matched against an object projection's names: its index, or -1. */
  private which(keep: Keep): number {
    const b = this.b;
    const start = this.i;
    if (!this.scanString()) return keep.names.indexOf(JSON.parse(this.utf8(start, this.i)) as string);
    const len = this.i - start - 2;
    for (let x = 0; x < keep.keys.length; x++) {
      const key = keep.keys[x] as Uint8Array;
      if (key.length !== len) continue;
      let y = 0;
      while (y < len && key[y] === b[start + 1 + y]) y++;
      if (y === len) return x;
    }
    return -1;
  }

  private colon(): void {
    this.ws();
    if (this.b[this.i] !== 58) this.fail('":" expected');
    this.i++;
    this.ws();
  }

  /** After a member or element: true at a comma (stepped over), false at `close` (stepped over). */
  private next(close: number): boolean {
    this.ws();
    const c = this.b[this.i];
    if (c === 44) {
      this.i++;
      this.ws();
      return true;
    }
    if (c !== close) this.fail(close === 125 ? '"," or "}" expected' : '"," or "]" expected');
    this.i++;
    return false;
  }

  /** Steps over the value at i, checking it as JSON.parse would. */
  private skip(): void {
    const c = this.b[this.i];
    if (c === 34) this.scanString();
    else if (c === 123) {
      this.i++;
      this.ws();
      if (this.b[this.i] === 125) {
        this.i++;
        return;
      }
      do {
        if (this.b[this.i] !== 34) this.fail('a key expected');
        this.scanString();
        this.colon();
        this.skip();
      } while (this.next(125));
    } else if (c === 91) {
      this.i++;
      this.ws();
      if (this.b[this.i] === 93) {
        this.i++;
        return;
      }
      do this.skip();
      while (this.next(93));
    } else if (c === 45 || (c !== undefined && c >= 48 && c <= 57)) this.number(false);
    else if (c === 116) this.literal('true', true);
    else if (c === 102) this.literal('false', false);
    else if (c === 110) this.literal('null', null);
    else this.fail(c === undefined ? 'unexpected end' : 'unexpected token');
  }

  /** The value at i, with what `keep` keeps. */
  private value(keep: Keep): unknown {
    const c = this.b[this.i];
    if (c === 123) return this.object(keep);
    if (c === 91) {
      this.i++;
      this.ws();
      const a: unknown[] = [];
      if (this.b[this.i] === 93) {
        this.i++;
        return a;
      }
      const item = keep.kind === 2 ? (keep.item as Keep) : this.whole;
      const map = keep.kind === 2 ? keep.map : null;
      do a.push(map === null ? this.value(item) : map(this.value(item)));
      while (this.next(93));
      return a;
    }
    if (c === 34) return this.string();
    if (c === 45 || (c !== undefined && c >= 48 && c <= 57)) return this.number(true);
    if (c === 116) return this.literal('true', true);
    if (c === 102) return this.literal('false', false);
    if (c === 110) return this.literal('null', null);
    return this.fail(c === undefined ? 'unexpected end' : 'unexpected token');
  }

  private object(keep: Keep): unknown {
    this.i++;
    this.ws();
    const o: any = {};
    if (this.b[this.i] === 125) {
      this.i++;
      return o;
    }
    do {
      if (this.b[this.i] !== 34) this.fail('a key expected');
      if (keep.kind !== 1) {
        const k = this.string();
        this.colon();
        JsonReader.put(o, k, this.value(this.whole));
        continue;
      }
      const start = this.i;
      const x = this.which(keep);
      const end = this.i;
      this.colon();
      if (x >= 0) JsonReader.put(o, keep.names[x] as string, this.value(keep.subs[x] as Keep));
      else if (keep.star !== null) JsonReader.put(o, JSON.parse(this.utf8(start, end)) as string, this.value(keep.star));
      else this.skip();
    } while (this.next(125));
    return o;
  }

  private static hex(c: number | undefined): boolean {
    return c !== undefined && ((c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102));
  }

  /** `o[k] = v` as JSON.parse does it: `__proto__` is an own key, never the prototype. */
  private static put(o: any, k: string, v: unknown): void {
    if (k === '__proto__') Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
    else o[k] = v;
  }
}

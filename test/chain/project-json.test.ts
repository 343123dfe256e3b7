/**
 * The parse worker reads the node's large answers straight from their bytes (src/chain/project-json.ts)
 * instead of TextDecoder + JSON.parse. What the watcher gets must not change: on every input,
 * real mainnet answers and thousands of broken ones, the bytes' reader must give exactly what the
 * reduction gives on JSON.parse's result, and refuse exactly what JSON.parse refuses.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { infoOutcome } from '../../src/chain/parse.js';
import { projectJson } from '../../src/chain/project-json.js';
import { scanBlockRange, scanBlockRangeBytes, scanTransferLogs, scanTransferLogsBytes, txIdsOfRange, txIdsOfRangeBytes } from '../../src/chain/prune.js';
import { TRANSFER_TOPIC } from '../../src/chain/trc20.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/tron/ledger-live');
const fixture = (name: string) => JSON.parse(readFileSync(path.join(FIXTURES, name), 'utf8'));
const encode = (text: string) => new TextEncoder().encode(text);
const decoder = new TextDecoder();

/** A reader of the bytes and the reduction it must equal on the full parse. */
interface Reader {
  name: string;
  fast: (bytes: Uint8Array) => unknown;
  full: (json: unknown) => unknown;
}
const whole: Reader = { name: 'whole', fast: (b) => projectJson(b, true), full: (j) => j };
const range: Reader = { name: 'blockRange', fast: (b) => scanBlockRangeBytes(b, projectJson), full: scanBlockRange };
const txIds: Reader = { name: 'blockTxIds', fast: (b) => txIdsOfRangeBytes(b, projectJson), full: txIdsOfRange };
const logs: Reader = {
  name: 'transferLogs',
  fast: (b) => scanTransferLogsBytes(b, projectJson, TRANSFER_TOPIC, infoOutcome),
  full: (j) => scanTransferLogs(j, TRANSFER_TOPIC, infoOutcome),
};

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };
const attempt = (f: () => unknown): Outcome => {
  try {
    return { ok: true, value: f() };
  } catch (error) {
    return { ok: false, error };
  }
};

/** Where the reader and JSON.parse + the reduction disagree on `bytes` (null when they agree). */
function disagreement(reader: Reader, bytes: Uint8Array): string | null {
  const want = attempt(() => reader.full(JSON.parse(decoder.decode(bytes))));
  const got = attempt(() => reader.fast(bytes));
  const shown = () => JSON.stringify(decoder.decode(bytes)).slice(0, 300);
  if (want.ok !== got.ok) return `${reader.name}: JSON.parse ${want.ok ? 'accepts' : 'refuses'}, the bytes' reader ${got.ok ? 'accepts' : 'refuses'} ${shown()}`;
  if (!got.ok) return got.error instanceof SyntaxError ? null : `${reader.name}: not a SyntaxError: ${String(got.error)}`;
  return isDeepStrictEqual(got.value, (want as { value: unknown }).value) ? null : `${reader.name}: different values for ${shown()}`;
}
const agree = (readers: Reader[], bytes: Uint8Array) => expect(readers.map((r) => disagreement(r, bytes)).filter((d) => d !== null)).toEqual([]);

// Real mainnet transactions of many kinds (TRX, TRC10, TRC20 calls, votes, freezes…) and infos.
const mainnetTxs = Object.values(fixture('fetchTronAccountTxs.fixture.json') as Record<string, Record<string, { data: unknown[] }>>)
  .flatMap((byQuery) => Object.values(byQuery))
  .flatMap((page) => page.data);
const mainnetInfos = Object.values(fixture('getTransactionInfoById.fixture.json') as Record<string, unknown>);
const header = (number: number) => ({
  raw_data: { number, txTrieRoot: '00'.repeat(32), witness_address: '41' + 'ab'.repeat(20), parentHash: number.toString(16).padStart(64, '0'), version: 30, timestamp: 1738601751000 + number * 3000 },
  witness_signature: 'cd'.repeat(65),
});
const mainnetRange = { block: [0, 1, 2].map((k) => ({ blockID: (69316644 + k).toString(16).padStart(64, '0'), block_header: header(69316644 + k), transactions: mainnetTxs.filter((_, i) => i % 3 === k) })) };

describe('reading an answer from its bytes', () => {
  it('gives what the reductions give on JSON.parse, for mainnet ranges and infos, compact and pretty-printed', () => {
    expect(mainnetTxs.length).toBeGreaterThan(40);
    expect(mainnetInfos.length).toBeGreaterThan(10);
    for (const space of [0, 2, '\t']) {
      const rangeBytes = encode(JSON.stringify(mainnetRange, null, space));
      agree([whole, range, txIds], rangeBytes);
      agree([whole, logs], encode(JSON.stringify(mainnetInfos, null, space)));
    }
    // And the reduction is not empty: the mainnet transfers and Transfer logs are there.
    const scanned = scanBlockRangeBytes(encode(JSON.stringify(mainnetRange)), projectJson) as { block: { transfers: unknown[]; calls: unknown[] }[] };
    expect(scanned.block.flatMap((b) => b.transfers).length).toBeGreaterThan(0);
    expect(scanned.block.flatMap((b) => b.calls).length).toBeGreaterThan(0);
    const found = scanTransferLogsBytes(encode(JSON.stringify(mainnetInfos)), projectJson, TRANSFER_TOPIC, infoOutcome) as { logs: unknown[] };
    expect(found.logs.length).toBeGreaterThan(0);
  });

  it('keeps only what the projection names, and the whole of a value of another type than expected', () => {
    expect(projectJson(encode('{"a":1,"b":{"c":[1,2]},"d":"x"}'), { a: true, b: { c: true } })).toEqual({ a: 1, b: { c: [1, 2] } });
    expect(projectJson(encode('{"a":1,"b":"x","c":{}}'), { '*': true, b: true })).toEqual({ a: 1, b: 'x', c: {} });
    // A projection for an object meets an array, a string, null: each is kept whole.
    expect(projectJson(encode('[{"a":1,"z":2},[{"z":1}],"s",null]'), [{ a: true }])).toEqual([{ a: 1 }, [{ z: 1 }], 's', null]);
    expect(projectJson(encode('{"a":[1,{"b":2}]}'), { a: { b: true } })).toEqual({ a: [1, { b: 2 }] });
    // Each element goes through the map as it is read.
    expect(projectJson(encode('[1,2,3]'), [true, (n: number) => n * 10])).toEqual([10, 20, 30]);
  });

  it('reads strings, numbers and keys exactly as JSON.parse does', () => {
    const cases = [
      '"plain"', '"quote \\" backslash \\\\ slash \\/ \\b\\f\\n\\r\\t"', '"\\u00e9\\u20AC\\ud83d\\ude00"', '"lone \\ud800"', '"é€😀"',
      '0', '-0', '7', '-12', '123456789012345', '-12345678901234', '999999999999999', '9999999999999999', '9007199254740993', '1234567890123456789', '0.1', '-0.000001', '1e3', '1E+2', '2e-3', '1e400', '-1e400', '1e-400',
      'true', 'false', 'null', '[]', '{}', ' [ 1 , 2 ] ', '\n\t{"a" :\r\n[ ]}\n',
      '{"__proto__":{"x":1},"y":2}', '{"a":1,"a":2}', '{"a\\u0062":1}', '{"é":1}', '[[[[[[[[1]]]]]]]]',
      '\uFEFF{"bom":true}',
    ];
    for (const c of cases) agree([whole], encode(c));
    // A key spelt with an escape or in UTF-8 is still the key the projection names.
    expect(projectJson(encode('{"t\\u0078ID":"a","é":"b","x":"c"}'), { txID: true, é: true })).toEqual({ txID: 'a', é: 'b' });
    // `__proto__` is an own key, never the object's prototype.
    const proto = projectJson(encode('{"__proto__":{"polluted":true}}'), { '*': true }) as Record<string, unknown>;
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.keys(proto)).toEqual(['__proto__']);
    // The last of duplicate keys wins, as in JSON.parse, also for a range's `block`.
    agree([whole, range, txIds], encode('{"block":[{"blockID":"01"}],"block":[{"blockID":"02"}]}'));
    agree([whole, range, txIds], encode('{"block":[{"blockID":"01"}],"block":"not a list","Error":"x"}'));
  });

  it('reads a view over a larger buffer within the view alone', () => {
    const text = '{"block":[{"blockID":"0a","transactions":[{"txID":"t1","ret":[{"contractRet":"SUCCESS"}]}]}]}';
    const before = 'garbage"[{';
    const inside = encode(`${before}${text}]}"garbage`);
    const view = inside.subarray(before.length, before.length + text.length);
    expect(decoder.decode(view)).toBe(text);
    agree([whole, range, txIds], view);
    expect((range.fast(view) as { block: { blockID: string }[] }).block[0]!.blockID).toBe('0a');
    // Cut short by one byte, the view is a broken answer, whatever the buffer holds after it.
    agree([whole, range, txIds], inside.subarray(before.length, before.length + text.length - 1));
    expect(() => range.fast(inside.subarray(before.length, before.length + text.length - 1))).toThrow(SyntaxError);
  });

  it('refuses nesting too deep for its stack with a RangeError (the worker then parses the usual way)', () => {
    const deep = encode(`${'['.repeat(50_000)}${']'.repeat(50_000)}`);
    expect(() => projectJson(deep, true)).toThrow(RangeError);
  });

  it('refuses everything JSON.parse refuses, in skipped parts too', () => {
    const broken = [
      '', ' ', '\uFEFF', '{', '[', '"', '{"a"}', '{"a":}', '{"a":1,}', '[1,]', '[1 2]', '{"a" 1}', '{a:1}', "{'a':1}", '[01]', '[-]', '[1.]', '[.5]', '[+1]',
      '[1e]', '[1e+]', '[0x10]', '[tru]', '[nul]', '[True]', '[NaN]', '[Infinity]', '["a\\x"]', '["\\u12"]', '["\\u12g4"]', '["tab\there"]', '["nl\nhere"]',
      '{"skipped":"\\q","block":[]}', '{"skipped":"raw\u0001control","block":[]}', '{"skipped":[1,,2],"block":[]}', '{"block":[]} x', '{"block":[]}{}', '[] []',
      '{"block":[{"blockID":"01","signature":[tru]}]}', '{"block":[{"transactions":[{"raw_data_hex":"ab\u001fcd"}]}]}',
    ];
    for (const b of broken) agree([whole, range, txIds, logs], encode(b));
    // Every byte value in a skipped and in a kept string, after a backslash there, and between
    // tokens: only what JSON.parse accepts is accepted, and read as TextDecoder reads it.
    const strings = [
      '{"kept":"aXb","blockID":"aXb","block":[{"blockID":"aXb"}]}',
      '{"block":[{"blockID":"0a","skipped":"aXb"}]}',
      '[{"id":"1","skipped":"aXb"}]',
    ];
    const templates = [
      ...strings,
      ...strings.map((t) => t.replaceAll('X', '\\X')),
      '{"kept":[1,X2],"block":[{"blockID":X"0a","skipped":{"a"X:X1}}]X}',
      '[{"id":"1"X,"skipped":[X1X]}]',
    ];
    for (const template of templates) {
      for (let c = 0; c < 256; c++) agree([whole, range, txIds, logs], encode(template).map((x) => (x === 88 ? c : x)));
    }
  });

  it('agrees with JSON.parse on every truncation and on every one-byte change of a range and of infos', () => {
    // A TRX transfer and a token call (long hex shortened: every byte is changed in turn), and
    // an info without logs and one with a Transfer log.
    const short = (t: any) => ({ ...t, signature: ['5ig'], raw_data_hex: '0a02' });
    const smallRange = encode(JSON.stringify({ block: [{ blockID: '01', block_header: { raw_data: { number: 1 } }, transactions: [short(mainnetTxs[1]), short(mainnetTxs[4])] }] }));
    const smallInfos = encode(JSON.stringify([mainnetInfos[0], mainnetInfos[4]]));
    const swaps = [34, 92, 123, 125, 91, 93, 44, 58, 45, 46, 48, 101, 32, 0x1f, 0xc3];
    let cases = 0;
    for (const [doc, readers] of [
      [smallRange, [whole, range, txIds]],
      [smallInfos, [whole, logs]],
    ] as const) {
      const failures: string[] = [];
      const check = (bytes: Uint8Array) => {
        cases++;
        for (const r of readers) {
          const d = disagreement(r, bytes);
          if (d !== null && failures.length < 5) failures.push(d);
        }
      };
      for (let at = 0; at < doc.length; at++) {
        check(doc.subarray(0, at));
        const dropped = new Uint8Array(doc.length - 1);
        dropped.set(doc.subarray(0, at));
        dropped.set(doc.subarray(at + 1), at);
        check(dropped);
        for (const c of swaps) {
          if (doc[at] === c) continue;
          const changed = doc.slice();
          changed[at] = c;
          check(changed);
        }
      }
      expect(failures).toEqual([]);
    }
    expect(cases).toBeGreaterThan(30_000);
  });
});

/**
 * A block header the node printed without its id, its parent's id or (past the genesis block) its
 * time is a broken answer: refused, so the scan asks again, never read as '' or 0 (with which a
 * fork would pass unnoticed and a payment would look as made in 1970).
 */
import { describe, expect, it } from 'vitest';
import { TronNodeError } from '../../src/chain/errors.js';
import { parseHeader, parseScanBlock } from '../../src/chain/parse.js';

const header = {
  blockID: '0a'.repeat(32),
  block_header: { raw_data: { number: 7, parentHash: '0b'.repeat(32), timestamp: 1_700_000_000_000 } },
};
const without = (field: 'blockID' | 'parentHash' | 'timestamp') =>
  JSON.parse(JSON.stringify(header), (key, value: unknown) => (key === field ? undefined : value)) as Record<
    string,
    unknown
  >;

describe('block headers', () => {
  it('reads a whole header', () => {
    expect(parseHeader(header)).toMatchObject({
      number: 7,
      id: '0a'.repeat(32),
      parentHash: '0b'.repeat(32),
      timestamp: 1_700_000_000_000,
    });
  });

  for (const field of ['blockID', 'parentHash', 'timestamp'] as const) {
    it(`refuses a header without its ${field}, as a transient node failure`, () => {
      const err = (() => {
        try {
          parseHeader(without(field));
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(err).toBeInstanceOf(TronNodeError);
      expect(err).toMatchObject({ transient: true, message: `node answered block 7 without its ${field}` });
      // The scan path reads headers the same way.
      expect(() => parseScanBlock({ ...without(field), transfers: [], calls: [], unsure: [] })).toThrow(TronNodeError);
    });
  }

  it('takes the genesis block, whose number and time proto3 leaves out', () => {
    expect(
      parseHeader({ blockID: '00'.repeat(32), block_header: { raw_data: { parentHash: '00'.repeat(32) } } }),
    ).toMatchObject({ number: 0, timestamp: 0 });
  });
});

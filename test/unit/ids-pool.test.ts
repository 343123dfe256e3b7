/**
 * The random pool behind ids (src/db/ids.ts), against the CSPRNG output it was given: every draw is
 * the next unused bytes of one fill, a draw that does not fit in what is left starts the next fill,
 * and no byte is handed out twice. The CSPRNG is observed (each fill recorded), not replaced.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';

const fills: Buffer[] = [];
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>();
  return {
    ...real,
    randomFillSync: <T extends NodeJS.ArrayBufferView>(buf: T): T => {
      real.randomFillSync(buf);
      fills.push(Buffer.from(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength)));
      return buf;
    },
  };
});

const { randomBytesPooled } = await import('../../src/db/ids.js');

describe('pooled random bytes', () => {
  beforeEach(() => {
    fills.length = 0;
  });

  it("hands out each fill's bytes in order, once, and starts a new fill for a draw that does not fit", () => {
    // Sizes that leave a remainder at the end of a 4 KiB fill, so draws meet the boundary often.
    const sizes = Array.from({ length: 3000 }, (_, i) => [16, 12, 13, 7, 100][i % 5] as number);
    const draws = sizes.map((n) => randomBytesPooled(n));
    // This file's module starts with an empty pool: its first draw makes the first fill.
    let fill = 0;
    let at = 0;
    for (let i = 0; i < draws.length; i++) {
      const n = sizes[i] as number;
      if (at + n > 4096) {
        fill++;
        at = 0;
      }
      expect(draws[i], `draw ${i} (${n} bytes)`).toEqual((fills[fill] as Buffer).subarray(at, at + n));
      at += n;
    }
    expect(fill).toBeGreaterThan(5);
    expect(fills.length).toBe(fill + 1);
  });
});

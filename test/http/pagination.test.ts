import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, toPage } from '../../src/http/pagination.js';
import { AppError } from '../../src/errors.js';

describe('console list pagination', () => {
  it('returns the key a cursor was made from', () => {
    const key = { at: '2026-11-27T10:00:00.000Z', id: '0f1e2d3c-0000-4000-8000-000000000001' };
    expect(decodeCursor(encodeCursor(key))).toEqual(key);
    expect(decodeCursor(undefined)).toBeNull();
  });

  it('refuses a cursor it did not make with validation_failed at query.cursor', () => {
    for (const bad of ['not-base64!', encodeCursor({ at: 'x', id: 'y' }).slice(0, 5), 'W10']) {
      try {
        decodeCursor(bad);
        expect.unreachable(`accepted ${bad}`);
      } catch (e) {
        expect(e).toBeInstanceOf(AppError);
        expect((e as AppError).toBody().error.details).toEqual([
          { path: 'query.cursor', message: 'is not a cursor this server returned' },
        ]);
      }
    }
  });

  it('gives a next cursor only when another row exists, keyed on the last row shown', () => {
    const rows = [1, 2, 3].map((n) => ({ at: `t${n}`, id: `id${n}` }));
    expect(toPage(rows, 3, (r) => r)).toEqual({ data: rows, next_cursor: null });
    const page = toPage(rows, 2, (r) => r);
    expect(page.data).toEqual(rows.slice(0, 2));
    expect(decodeCursor(page.next_cursor!)).toEqual({ at: 't2', id: 'id2' });
  });
});

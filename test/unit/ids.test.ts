/** Time-ordered identifiers (src/db/ids.ts): valid UUIDv7 and event ids that sort by creation. */
import { describe, expect, it } from 'vitest';
import { timeOrderedId, uuidv7 } from '../../src/db/ids.js';

describe('time-ordered ids', () => {
  it('makes RFC 9562 UUIDv7 strings whose first 48 bits are the milliseconds', () => {
    const at = Date.UTC(2026, 10, 22, 18, 0, 0, 123);
    const id = uuidv7(at);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replace(/-/g, '').slice(0, 12), 16)).toBe(at);
  });

  it('sorts ids of later milliseconds after earlier ones, and never repeats', () => {
    const ids = Array.from({ length: 1000 }, (_, i) => uuidv7(1_795_000_000_000 + i));
    expect([...ids].sort()).toEqual(ids);
    const same = Array.from({ length: 10_000 }, () => uuidv7(1_795_000_000_000));
    expect(new Set(same).size).toBe(10_000);
    const events = Array.from({ length: 1000 }, (_, i) => timeOrderedId('evt_', 1_795_000_000_000 + i));
    expect(events.every((e) => /^evt_[0-9a-f]{24}$/.test(e))).toBe(true);
    expect([...events].sort()).toEqual(events);
  });
});

/**
 * Identifiers that sort by creation time. A random key (UUIDv4) sends every insert into a large
 * table to a random leaf page of its primary-key index, which on a million rows is rarely in
 * SQLite's cache: bench/scale.ts measured an invoice creation's inserts at ~10× their cost on an
 * empty database. Time-ordered keys put new rows next to each other
 * (docs/adr/0006-time-ordered-ids.md).
 * The random part still makes them unguessable: 74 bits for a UUID, 48 for an event id.
 */
import { randomBytes } from 'node:crypto';

/** A UUIDv7 (RFC 9562): 48-bit Unix milliseconds, version 7, variant 10, 74 random bits. */
export function uuidv7(now: number = Date.now()): string {
  const b = randomBytes(16);
  b.writeUIntBE(now, 0, 6);
  b[6] = 0x70 | ((b[6] as number) & 0x0f);
  b[8] = 0x80 | ((b[8] as number) & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** `prefix` + 24 hex digits: 48-bit Unix milliseconds, then 48 random bits. */
export function timeOrderedId(prefix: string, now: number = Date.now()): string {
  const b = randomBytes(12);
  b.writeUIntBE(now, 0, 6);
  return `${prefix}${b.toString('hex')}`;
}

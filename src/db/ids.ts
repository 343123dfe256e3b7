/**
 * Identifiers that sort by creation time. A random key (UUIDv4) sends every insert into a large
 * table to a random leaf page of its primary-key index, which on a million rows is rarely in
 * SQLite's cache: bench/scale.ts measured an invoice creation's inserts at ~10× their cost on an
 * empty database. Time-ordered keys put new rows next to each other
 * (docs/adr/0006-time-ordered-ids.md).
 * The random part still makes them unguessable: 74 bits for a UUID, 48 for an event id.
 */
import { randomFillSync } from 'node:crypto';

/**
 * Random bytes drawn from the CSPRNG 4 KiB at a time and handed out once each. Every
 * `randomBytes` call costs a syscall (OpenSSL checks its pid), twice per invoice creation (its id
 * and its event's id), where a draw from the pool is a copy. Node's own `randomUUID` pools the
 * same way.
 */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let used = POOL_BYTES;

export function randomBytesPooled(n: number): Buffer {
  if (n > POOL_BYTES) throw new RangeError(`at most ${POOL_BYTES} pooled random bytes at a time`);
  if (used + n > POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  // Each byte once: `used` only moves forward until the next fill.
  const out = Buffer.from(pool.subarray(used, used + n));
  used += n;
  return out;
}

/** A UUIDv7 (RFC 9562): 48-bit Unix milliseconds, version 7, variant 10, 74 random bits. */
export function uuidv7(now: number = Date.now()): string {
  const b = randomBytesPooled(16);
  b.writeUIntBE(now, 0, 6);
  b[6] = 0x70 | ((b[6] as number) & 0x0f);
  b[8] = 0x80 | ((b[8] as number) & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** `prefix` + 24 hex digits: 48-bit Unix milliseconds, then 48 random bits. */
export function timeOrderedId(prefix: string, now: number = Date.now()): string {
  const b = randomBytesPooled(12);
  b.writeUIntBE(now, 0, 6);
  return `${prefix}${b.toString('hex')}`;
}

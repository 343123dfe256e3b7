/**
 * TRON address codec: base58check (`T…`, what merchants and the API see) and hex with the `41`
 * prefix (what java-tron speaks without `visible: true`). Checksums are always verified. Built on
 * @scure/base, not on tronweb: importing tronweb (and ethers inside it) costs a process tens of
 * megabytes of memory, and nearly every module that handles an address is on `serve`'s path.
 */
import { createBase58check } from '@scure/base';
import { hash } from 'node:crypto';

const sha256 = (bytes: Uint8Array): Buffer => hash('sha256', bytes, 'buffer');
const base58check = createBase58check(sha256);
const SHAPE = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;

/** The 21 bytes (`41` + 20) of a base58check TRON address, or null: wrong shape, checksum, length or prefix. */
function decoded(text: string): Buffer | null {
  if (typeof text !== 'string' || !SHAPE.test(text)) return null;
  let bytes: Uint8Array;
  try {
    bytes = base58check.decode(text);
  } catch {
    return null; // a wrong checksum
  }
  return bytes.length === 21 && bytes[0] === 0x41 ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length) : null;
}

/** True for a base58check TRON address with a valid checksum (T + 33 characters). */
export function isTronAddress(text: string): boolean {
  return decoded(text) !== null;
}

/** base58 `T…` → hex `41…` (lower case). Throws on a bad checksum. */
export function toHexAddress(base58: string): string {
  return addressBytes(base58).toString('hex');
}

/** hex `41…` (or a 20-byte hex without the prefix, as in event logs) → base58 `T…`. */
export function fromHexAddress(hex: string): string {
  const h = hex.toLowerCase().replace(/^0x/, '');
  const full = h.length === 40 ? `41${h}` : h;
  if (!/^41[0-9a-f]{40}$/.test(full)) throw new Error(`not a TRON hex address: ${hex}`);
  return addressFromBytes(Buffer.from(full, 'hex'));
}

/** base58 `T…` → its 21 bytes (`41` + 20), checksum verified; throws like toHexAddress. */
export function addressBytes(base58: string): Buffer {
  const bytes = decoded(base58);
  if (bytes === null) throw new Error(`not a TRON address: ${base58}`);
  return bytes;
}

/** 21 bytes (`41` + 20) → base58check `T…`; the inverse of addressBytes. */
export function addressFromBytes(body: Uint8Array): string {
  if (body.length !== 21 || body[0] !== 0x41) throw new Error('a TRON address is 21 bytes starting with 0x41');
  return base58check.encode(body);
}

/**
 * TRON address codec: base58check (`T…`, what merchants and the API see) and hex with the `41`
 * prefix (what java-tron speaks without `visible: true`). Checksums are always verified. Our own
 * code, not tronweb's: importing tronweb (and ethers inside it) costs a process ~51 MB of memory,
 * and nearly every module that handles an address is on `serve`'s path (decisions: "tronweb only
 * where a transaction is built or signed").
 */
import { hash } from 'node:crypto';

export const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BASE58_DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE58.length; i++) BASE58_DIGIT[BASE58.charCodeAt(i)] = i;

/** True for a base58check TRON address with a valid checksum (T + 33 characters). */
export function isTronAddress(text: string): boolean {
  return /^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(text) && decodeAddress(text, BASE58_DIGIT, sha256) !== null;
}

/** base58 `T…` → hex `41…` (lower case). Throws on a bad checksum. */
export function toHexAddress(base58: string): string {
  const bytes = /^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(base58) ? decodeAddress(base58, BASE58_DIGIT, sha256) : null;
  if (bytes === null) throw new Error(`not a TRON address: ${base58}`);
  return bytes.toString('hex');
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
  const bytes = decodeAddress(base58, BASE58_DIGIT, sha256);
  if (bytes === null) throw new Error(`not a TRON address: ${base58}`);
  return bytes;
}

/** 21 bytes (`41` + 20) → base58check `T…`; the inverse of addressBytes. */
export function addressFromBytes(body: Uint8Array): string {
  if (body.length !== 21 || body[0] !== 0x41) throw new Error('a TRON address is 21 bytes starting with 0x41');
  const payload = Buffer.alloc(25);
  payload.set(body, 0);
  checksumOf(payload.subarray(0, 21)).copy(payload, 21, 0, 4);
  // Base-256 to base-58 digits, least significant first. The 0x41 prefix means no leading zero
  // bytes, so no leading '1's, and always 34 digits.
  const digits: number[] = [];
  for (const byte of payload) {
    let carry = byte;
    for (let j = 0; j < digits.length; j++) {
      carry += (digits[j] as number) * 256;
      digits[j] = carry % 58;
      carry = Math.floor(carry / 58);
    }
    for (; carry > 0; carry = Math.floor(carry / 58)) digits.push(carry % 58);
  }
  let out = '';
  for (let j = digits.length - 1; j >= 0; j--) out += BASE58[digits[j] as number];
  return out;
}

/** The 21 bytes of a 34-character base58check address with the 0x41 prefix, or null. */
export function decodeAddress(base58: string, digits: Int8Array, sha256: (bytes: Uint8Array) => Uint8Array): Buffer | null {
  const bytes = Buffer.alloc(25);
  if (typeof base58 !== 'string' || base58.length !== 34) return null;
  for (let i = 0; i < 34; i++) {
    const code = base58.charCodeAt(i);
    let carry = code < 128 ? (digits[code] as number) : -1;
    if (carry < 0) return null;
    for (let j = 24; j >= 0; j--) {
      carry += (bytes[j] as number) * 58;
      bytes[j] = carry & 0xff;
      carry >>= 8;
    }
    // More than 25 bytes: not an address (and the 0x41 check below could be fooled otherwise).
    if (carry !== 0) return null;
  }
  const body = bytes.subarray(0, 21);
  const check = sha256(sha256(body));
  for (let i = 0; i < 4; i++) if (check[i] !== bytes[21 + i]) return null;
  return bytes[0] === 0x41 ? body : null;
}

const sha256 = (bytes: Uint8Array): Buffer => hash('sha256', bytes, 'buffer');

/** base58check's checksum: the first 4 bytes of sha256(sha256(payload)). */
function checksumOf(payload: Uint8Array): Buffer {
  return sha256(sha256(payload));
}

/**
 * TRON address codec: base58check (`T…`, what merchants and the API see) and hex with the `41`
 * prefix (what java-tron speaks without `visible: true`). Checksums are always verified.
 */
import { hash } from 'node:crypto';
import { TronWeb } from 'tronweb';

/** True for a base58check TRON address with a valid checksum (T + 33 characters). */
export function isTronAddress(text: string): boolean {
  return /^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(text) && TronWeb.isAddress(text);
}

/** base58 `T…` → hex `41…` (lower case). Throws on a bad checksum. */
export function toHexAddress(base58: string): string {
  if (!isTronAddress(base58)) throw new Error(`not a TRON address: ${base58}`);
  return TronWeb.address.toHex(base58).toLowerCase();
}

/** hex `41…` (or a 20-byte hex without the prefix, as in event logs) → base58 `T…`. */
export function fromHexAddress(hex: string): string {
  const h = hex.toLowerCase().replace(/^0x/, '');
  const full = h.length === 40 ? `41${h}` : h;
  if (!/^41[0-9a-f]{40}$/.test(full)) throw new Error(`not a TRON hex address: ${hex}`);
  return TronWeb.address.fromHex(full);
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const BASE58_DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < BASE58.length; i++) BASE58_DIGIT[BASE58.charCodeAt(i)] = i;

/**
 * base58 `T…` → its 21 bytes (`41` + 20), checksum verified; throws like toHexAddress. Same answer,
 * about 8 times faster: TronWeb's path costs 30-40 µs an address, which would be 35-45 s of event
 * loop for the watcher's first load of a million addresses.
 */
export function addressBytes(base58: string): Buffer {
  const bytes = Buffer.alloc(25);
  if (base58.length !== 34) throw new Error(`not a TRON address: ${base58}`);
  for (let i = 0; i < 34; i++) {
    const code = base58.charCodeAt(i);
    let carry = code < 128 ? (BASE58_DIGIT[code] as number) : -1;
    if (carry < 0) throw new Error(`not a TRON address: ${base58}`);
    for (let j = 24; j >= 0; j--) {
      carry += (bytes[j] as number) * 58;
      bytes[j] = carry & 0xff;
      carry >>= 8;
    }
    if (carry !== 0) throw new Error(`not a TRON address: ${base58}`);
  }
  const body = bytes.subarray(0, 21);
  const check = hash('sha256', hash('sha256', body, 'buffer'), 'buffer');
  if (bytes[0] !== 0x41 || check.compare(bytes, 21, 25, 0, 4) !== 0) throw new Error(`not a TRON address: ${base58}`);
  return body;
}

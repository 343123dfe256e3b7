/**
 * TRON address codec: base58check (`T…`, what merchants and the API see) and hex with the `41`
 * prefix (what java-tron speaks without `visible: true`). Checksums are always verified.
 */
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

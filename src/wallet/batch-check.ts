/**
 * Checks a batch of child public keys from the derivation worker at a fraction of what deriving
 * them costs (issue 12; issue 13 A6: every address handed out is checked), and encodes their
 * addresses. Child i must be C_i = P + t_i·G, with t_i the BIP32 tweak computed here (one HMAC).
 * With random 64-bit weights r_i drawn here after the worker answered, the batch is right only if
 *
 *   Σ r_i·C_i  =  (Σ r_i)·P + (Σ r_i·t_i)·G
 *
 * A batch with any wrong point passes with probability at most 2^-63 (for a wrong C_i the
 * equation holds for one value of r_i modulo the group order, whatever the other weights), and a
 * wrong point cannot be chosen to cancel out: the deriving worker never sees the weights. The left
 * side is one multi-scalar multiplication with 64-bit scalars (Pippenger's buckets, ~15 additions
 * a point for a batch of 256) instead of a 256-bit multiplication per point. On a mismatch the
 * batch is checked point by point, to name the first wrong index.
 *
 * The functions below run on the derivation worker (derive-worker.ts evaluates their text) and, in
 * tests, here: they use only each other and the module-level names the worker defines the same way
 * (Point, ORDER, hmacSha512, sha256, keccak256, randomWeights), never an import directly.
 */
import { secp256k1 } from '@noble/curves/secp256k1';
import { keccak_256 } from '@noble/hashes/sha3';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { CurvePoint } from './hd.js';

const Point = secp256k1.ProjectivePoint;
const ORDER = secp256k1.CURVE.n;
const hmacSha512 = (key: Uint8Array, data: Uint8Array): Buffer => createHmac('sha512', key).update(data).digest();
const sha256 = (data: Uint8Array): Buffer => createHash('sha256').update(data).digest();
const keccak256 = (data: Uint8Array): Uint8Array => keccak_256(data);
/** Odd 64-bit weights, so never zero (a zero weight would leave its point unchecked). */
const randomWeights = (count: number): bigint[] => {
  const bytes = randomBytes(8 * count);
  return Array.from({ length: count }, (_, i) => bytes.readBigUInt64BE(8 * i) | 1n);
};

/** The public parts of the deposit account key that a check needs. */
export interface ParentKey {
  chainCode: Uint8Array;
  /** 33-byte compressed public key. */
  compressed: Uint8Array;
}

/** Σ weights[i]·points[i] for weights below 2^64 (Pippenger: one window of buckets at a time). */
export function linearCombination(points: CurvePoint[], weights: bigint[]): CurvePoint {
  const c = points.length >= 512 ? 7 : points.length >= 64 ? 6 : 4;
  const mask = (1n << BigInt(c)) - 1n;
  let acc = Point.ZERO;
  for (let w = Math.ceil(64 / c) - 1; w >= 0; w--) {
    for (let k = 0; k < c; k++) acc = acc.double();
    const buckets: (CurvePoint | undefined)[] = new Array(1 << c);
    const shift = BigInt(w * c);
    for (let i = 0; i < points.length; i++) {
      const d = Number(((weights[i] as bigint) >> shift) & mask);
      if (d !== 0) buckets[d] = buckets[d] ? (buckets[d] as CurvePoint).add(points[i] as CurvePoint) : points[i];
    }
    // Σ d·bucket[d] as a running sum from the top bucket down: two additions a bucket.
    let running = Point.ZERO;
    let sum = Point.ZERO;
    for (let d = buckets.length - 1; d > 0; d--) {
      const b = buckets[d];
      if (b) running = running.add(b);
      sum = sum.add(running);
    }
    acc = acc.add(sum);
  }
  return acc;
}

/** The BIP32 tweak of child `index` (IL as a scalar), or null when that index is invalid. */
export function childTweak(parent: ParentKey, index: number): bigint | null {
  const data = new Uint8Array(37);
  data.set(parent.compressed, 0);
  new DataView(data.buffer).setUint32(33, index);
  const il = hmacSha512(parent.chainCode, data).subarray(0, 32);
  const tweak = BigInt(`0x${Buffer.from(il).toString('hex')}`);
  return tweak === 0n || tweak >= ORDER ? null : tweak;
}

/** base58check TRON address of a 64-byte x‖y public key. */
export function tronAddressOfRawKey(raw: Uint8Array): string {
  const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
  const payload = new Uint8Array(25);
  payload[0] = 0x41;
  payload.set(keccak256(raw).subarray(12), 1);
  payload.set(sha256(sha256(payload.subarray(0, 21))).subarray(0, 4), 21);
  let n = BigInt(`0x${Buffer.from(payload).toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = alphabet[Number(n % 58n)] + out;
    n /= 58n;
  }
  return out; // the 0x41 prefix: never a leading zero byte
}

/** A 64-byte x‖y public key as a curve point, or an error naming the index. */
function pointOfRawKey(raw: Uint8Array, index: number): CurvePoint {
  try {
    if (raw.length !== 64) throw new Error('length');
    const key = new Uint8Array(65);
    key[0] = 4;
    key.set(raw, 1);
    const p = Point.fromHex(key);
    p.assertValidity();
    return p;
  } catch {
    throw new Error(`derivation worker gave no valid public key at index ${index}`);
  }
}

/**
 * The addresses of indexes from .. from+raw.length-1 once the worker's keys pass the check (null
 * where BIP32 makes the index invalid); throws an Error naming the index otherwise.
 */
export function checkedAddresses(parent: ParentKey, from: number, raw: (Uint8Array | null)[]): (string | null)[] {
  const points: CurvePoint[] = [];
  const tweaks: bigint[] = [];
  for (let i = 0; i < raw.length; i++) {
    const r = raw[i] ?? null;
    const tweak = childTweak(parent, from + i);
    if ((tweak === null) !== (r === null)) throw new Error(`derivation worker disagrees with the check at index ${from + i} (validity)`);
    if (tweak === null || r === null) continue;
    points.push(pointOfRawKey(r, from + i));
    tweaks.push(tweak);
  }
  const weights = randomWeights(points.length);
  let weightSum = 0n;
  let tweakSum = 0n;
  for (let i = 0; i < weights.length; i++) {
    weightSum += weights[i] as bigint;
    tweakSum = (tweakSum + (weights[i] as bigint) * (tweaks[i] as bigint)) % ORDER;
  }
  const parentPoint = Point.fromHex(parent.compressed);
  const right = parentPoint.multiply(weightSum % ORDER).add(tweakSum === 0n ? Point.ZERO : Point.BASE.multiply(tweakSum));
  if (!linearCombination(points, weights).equals(right)) {
    // Only after a failed batch: the first index whose key is not P + t·G.
    for (let i = 0, k = 0; i < raw.length; i++) {
      if (raw[i] === null) continue;
      const expected = Point.BASE.multiply(tweaks[k] as bigint).add(parentPoint);
      if (!(points[k++] as CurvePoint).equals(expected)) throw new Error(`derivation worker disagrees with the check at index ${from + i}`);
    }
    throw new Error(`derivation worker failed the batch check at indexes ${from}..${from + raw.length - 1}`);
  }
  return raw.map((r) => (r === null ? null : tronAddressOfRawKey(r)));
}

/** The text of the functions above and the names they use, for the check worker to evaluate. */
export const CHECK_SOURCE = [linearCombination, childTweak, tronAddressOfRawKey, pointOfRawKey, checkedAddresses].map((f) => f.toString()).join('\n');

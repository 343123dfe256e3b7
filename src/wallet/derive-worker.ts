/**
 * Deposit address derivation on a worker thread, so the API's event loop never spends its time on
 * elliptic-curve arithmetic. The worker gets only public data (chain code and public key of the
 * account xpub). It derives a batch of child public keys, then checks them with independent code
 * (batch-check.ts: the tweaks recomputed, one randomized equation over the batch) and encodes the
 * addresses from the checked keys; a batch that fails the check is an error, never addresses.
 *
 * How it is fast: child i is P + t_i·G. With a table of d·256^w·G (32 rows of 255 affine points,
 * ~1 MB, ~70 ms once) t·G is at most 32 additions and no doublings; and the batch's children are
 * advanced together, one table row at a time, in affine coordinates, where one field inversion
 * serves the whole batch (Montgomery's trick): about 6 field multiplications an addition instead of
 * the ~14 of a projective one. Tweaks are of a watch-only key (public data), so variable time is
 * fine here.
 */
import { CHECK_SOURCE } from './batch-check.js';
import { startWalletWorker, walletWorkerSource } from './eval-worker.js';

const source = (deriveSource: string) =>
  walletWorkerSource(`
const P = secp256k1.CURVE.Fp.ORDER;
const chainCode = Buffer.from(workerData.chainCode, 'hex');
const parentCompressed = Buffer.from(workerData.publicKey, 'hex');
const parent = Point.fromHex(parentCompressed).toAffine();
const table = [];
for (let w = 0, base = Point.BASE; w < 32; w++) {
  const row = [Point.ZERO, base];
  for (let d = 2; d < 256; d++) row.push(row[d - 1].add(base));
  table.push(Point.normalizeZ(row.slice(1)).map((q) => q.toAffine()));
  base = row[255].add(base);
}
function tweakBytes(index) {
  const data = Buffer.alloc(37);
  parentCompressed.copy(data, 0);
  data.writeUInt32BE(index, 33);
  const il = crypto.createHmac('sha512', chainCode).update(data).digest().subarray(0, 32);
  const t = BigInt('0x' + il.toString('hex'));
  return t === 0n || t >= ORDER ? null : il;
}
// The rare child whose batch addition would need a doubling (or meets its negation): the slow,
// complete formulas, for that child only.
function slowChild(il) {
  return Point.BASE.multiply(BigInt('0x' + Buffer.from(il).toString('hex'))).add(Point.fromAffine(parent));
}
${deriveSource}
const hmacSha512 = (key, data) => crypto.createHmac('sha512', key).update(data).digest();
const sha256 = (data) => crypto.createHash('sha256').update(data).digest();
const keccak256 = (data) => keccak_256(data);
const randomWeights = (count) => {
  const bytes = crypto.randomBytes(8 * count);
  return Array.from({ length: count }, (_, i) => bytes.readBigUInt64BE(8 * i) | 1n);
};
${CHECK_SOURCE}
const parentKey = { chainCode, compressed: parentCompressed };
const handle = ({ from, count }) => ({ from, count, addresses: checkedAddresses(parentKey, from, derive(from, count)) });
`);

/** The batch derivation the worker runs: `function derive(from, count)` → 64-byte keys or null. */
export const DERIVE_SOURCE = `
// x mod P for 0 <= x < 2^512, by P's shape (P = 2^256 - 0x1000003d1): hi·2^256 + lo = hi·0x1000003d1
// + lo (mod P), twice, leaves x < 2^256 + 2^66 < 2P. A third less time than BigInt's general %,
// which is most of a derivation. (The check, batch-check.ts, keeps noble's arithmetic: independent.)
const MASK256 = (1n << 256n) - 1n;
function red(x) {
  x = (x >> 256n) * 0x1000003d1n + (x & MASK256);
  x = (x >> 256n) * 0x1000003d1n + (x & MASK256);
  return x >= P ? x - P : x;
}
function derive(from, count) {
  const tweaks = [];
  for (let i = 0; i < count; i++) tweaks.push(tweakBytes(from + i));
  const xs = tweaks.map(() => parent.x);
  const ys = tweaks.map(() => parent.y);
  const slow = tweaks.map((t) => t === null);
  const prefix = [];
  for (let w = 0; w < 32; w++) {
    const pending = [];
    let product = 1n;
    for (let i = 0; i < count; i++) {
      const b = slow[i] ? 0 : tweaks[i][31 - w];
      if (b === 0) continue;
      const q = table[w][b - 1];
      let d = q.x - xs[i];
      if (d < 0n) d += P;
      if (d === 0n) { slow[i] = true; continue; }
      prefix[pending.length] = product;
      pending.push(i);
      product = red(product * d);
    }
    let inverse = secp256k1.CURVE.Fp.inv(product);
    for (let k = pending.length - 1; k >= 0; k--) {
      const i = pending[k];
      const q = table[w][tweaks[i][31 - w] - 1];
      let d = q.x - xs[i];
      if (d < 0n) d += P;
      const invD = red(inverse * prefix[k]);
      inverse = red(inverse * d);
      let dy = q.y - ys[i];
      if (dy < 0n) dy += P;
      const l = red(dy * invD);
      let x3 = red(l * l) - xs[i] - q.x;
      while (x3 < 0n) x3 += P;
      let dx = xs[i] - x3;
      if (dx < 0n) dx += P;
      let y3 = red(l * dx) - ys[i];
      if (y3 < 0n) y3 += P;
      xs[i] = x3;
      ys[i] = y3;
    }
  }
  return tweaks.map((t, i) => {
    if (t === null) return null;
    if (!slow[i]) return Buffer.from(xs[i].toString(16).padStart(64, '0') + ys[i].toString(16).padStart(64, '0'), 'hex');
    const c = slowChild(t);
    return c.equals(Point.ZERO) ? null : c.toRawBytes(false).subarray(1);
  });
}
`;

export interface DerivedBatch {
  from: number;
  count: number;
  /** Checked addresses of indexes from .. from+count-1 (null for a BIP32-invalid index). */
  addresses: (string | null)[];
}

export interface BatchDeriver {
  derive(from: number, count: number): Promise<DerivedBatch>;
  stop(): Promise<void>;
}

/**
 * `deriveSource` replaces the derivation (tests: one with a bug, which the check must catch). A
 * batch of 256 takes ~50 ms, serve's 1,024 ~150 ms: a worker silent for `timeoutMs` is stuck, and
 * the pool derives without it.
 */
export function startDeriveWorker(chainCodeHex: string, publicKeyHex: string, deriveSource = DERIVE_SOURCE, timeoutMs = 10_000): BatchDeriver {
  const worker = startWalletWorker('derivation', source(deriveSource), { chainCode: chainCodeHex, publicKey: publicKeyHex }, timeoutMs);
  return {
    derive: (from, count) => worker.call({ from, count }),
    stop: () => worker.stop(),
  };
}

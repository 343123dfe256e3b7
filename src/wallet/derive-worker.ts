/**
 * Deposit address derivation on a worker thread, so the API's event loop never spends its time on
 * elliptic-curve multiplications (about 0.5 ms each here). The worker gets only public data (chain
 * code and public key of the account xpub). Its source is plain JavaScript evaluated in the worker,
 * so it runs the same under tsx, vitest and the built dist/. The pool checks every address of every
 * batch against the main thread's own derivation before using it.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHmac, createHash } = require('node:crypto');
const { secp256k1 } = require(workerData.curves);
const { keccak_256 } = require(workerData.sha3);
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const chainCode = Buffer.from(workerData.chainCode, 'hex');
const parentCompressed = Buffer.from(workerData.publicKey, 'hex');
const parent = secp256k1.ProjectivePoint.fromHex(parentCompressed);
function base58check(payload) {
  const sum = createHash('sha256').update(createHash('sha256').update(payload).digest()).digest();
  const bytes = Buffer.concat([payload, sum.subarray(0, 4)]);
  let n = BigInt('0x' + bytes.toString('hex'));
  let out = '';
  while (n > 0n) { out = ALPHABET[Number(n % 58n)] + out; n /= 58n; }
  for (const b of bytes) { if (b !== 0) break; out = '1' + out; }
  return out;
}
function childPoint(index) {
  const data = Buffer.alloc(37);
  parentCompressed.copy(data, 0);
  data.writeUInt32BE(index, 33);
  const I = createHmac('sha512', chainCode).update(data).digest();
  const tweak = BigInt('0x' + I.subarray(0, 32).toString('hex'));
  if (tweak === 0n || tweak >= secp256k1.CURVE.n) return null;
  const child = secp256k1.ProjectivePoint.BASE.multiply(tweak).add(parent);
  return child.equals(secp256k1.ProjectivePoint.ZERO) ? null : child;
}
function addressOf(point) {
  const hash = keccak_256(point.toRawBytes(false).subarray(1));
  return base58check(Buffer.concat([Buffer.from([0x41]), Buffer.from(hash.subarray(12))]));
}
parentPort.on('message', ({ id, from, count }) => {
  const points = [];
  for (let i = from; i < from + count; i++) points.push(childPoint(i));
  // One field inversion for the whole batch instead of one per point (Montgomery's trick).
  const valid = points.filter((p) => p !== null);
  const affine = secp256k1.ProjectivePoint.normalizeZ(valid);
  let k = 0;
  const addresses = points.map((p) => (p === null ? null : addressOf(affine[k++])));
  parentPort.postMessage({ id, addresses });
});
`;

export interface BatchDeriver {
  /** Addresses of indexes from .. from+count-1 (null for a BIP32-invalid index). */
  derive(from: number, count: number): Promise<(string | null)[]>;
  stop(): Promise<void>;
}

export function startDeriveWorker(chainCodeHex: string, publicKeyHex: string): BatchDeriver {
  const require = createRequire(import.meta.url);
  const curves = require.resolve('@noble/curves/secp256k1');
  const sha3 = createRequire(curves).resolve('@noble/hashes/sha3');
  const worker = new Worker(SOURCE, { eval: true, workerData: { curves, sha3, chainCode: chainCodeHex, publicKey: publicKeyHex } });
  worker.unref();
  let next = 0;
  const waiting = new Map<number, { resolve: (a: (string | null)[]) => void; reject: (e: unknown) => void }>();
  const failAll = (e: unknown) => {
    for (const w of waiting.values()) w.reject(e);
    waiting.clear();
  };
  worker.on('message', (m: { id: number; addresses: (string | null)[] }) => {
    waiting.get(m.id)?.resolve(m.addresses);
    waiting.delete(m.id);
  });
  worker.on('error', failAll);
  worker.on('exit', () => failAll(new Error('derivation worker exited')));
  return {
    derive(from, count) {
      return new Promise((resolve, reject) => {
        const id = next++;
        waiting.set(id, { resolve, reject });
        worker.postMessage({ id, from, count });
      });
    },
    async stop() {
      await worker.terminate();
    },
  };
}

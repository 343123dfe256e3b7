/**
 * The deposit address pool's worker thread (started by pool.ts): the addresses of a range of
 * derivation indexes, from the account xpub, with the main thread's own derivation.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { DepositKeyChain } from './hd.js';

const chain = new DepositKeyChain((workerData as { xpub: string }).xpub);

parentPort?.on('message', ({ from, count }: { from: number; count: number }) => {
  try {
    const addresses = Array.from({ length: count }, (_, i) => chain.addressAt(from + i));
    parentPort?.postMessage({ from, addresses });
  } catch (e) {
    parentPort?.postMessage({ error: (e as Error).message });
  }
});

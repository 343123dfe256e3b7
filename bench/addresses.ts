/**
 * Deposit address derivation as a creation does it: BIP32 public child derivation from the cached
 * account node and the TRON encoding, on the event loop, one address at a time. The figure is the
 * CPU each invoice creation (and each first permanent address) spends on its address.
 *
 *   npx tsx bench/addresses.ts [--count 4096] [--rounds 3]
 */
import { performance } from 'node:perf_hooks';
import { DepositKeyChain, publicInfoOf } from '../src/wallet/hd.js';
import { summary } from './lib/summary.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] as string) : dflt;
};
const count = Number(arg('count', '4096'));
const rounds = Number(arg('rounds', '3'));
const phrase = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const chain = new DepositKeyChain(publicInfoOf(phrase).depositXpub);

const perAddressUs: number[] = [];
for (let r = 0; r < rounds; r++) {
  const from = r * count;
  const t0 = performance.now();
  for (let i = from; i < from + count; i++) chain.addressAt(i);
  const us = ((performance.now() - t0) * 1000) / count;
  perAddressUs.push(us);
  console.log(`round ${r + 1}: ${us.toFixed(0)} µs/address, ${Math.round(1e6 / us)}/s`);
}
const median = perAddressUs.sort((a, b) => a - b)[Math.floor(rounds / 2)] as number;
console.log(`addresses: ${count} per round, median of ${rounds}`);
summary({ metric: 'address derivation (event loop)', value: `${median.toFixed(0)} µs` });
summary({ metric: 'addresses derived', value: `${Math.round(1e6 / median).toLocaleString('en-US')}/s` });

/**
 * Links to a transaction on the public explorer of the chain this instance watches: Tronscan on
 * mainnet and on Nile; none on the devnet, whose transactions no explorer knows.
 */
import type { TronNetwork } from '../config.js';

const EXPLORERS: Partial<Record<TronNetwork, string>> = {
  mainnet: 'https://tronscan.org/#/transaction/',
  nile: 'https://nile.tronscan.org/#/transaction/',
};

export function transactionUrl(network: TronNetwork, txHash: string): string | null {
  const base = EXPLORERS[network];
  return base ? `${base}${encodeURIComponent(txHash)}` : null;
}

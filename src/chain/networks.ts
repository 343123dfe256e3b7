/**
 * Network defaults shipped in config/networks.json. TRON_FULL_NODE_URL overrides the default node
 * of TRON_NETWORK; the same client code then talks to TronGrid, an own node, Nile or the devnet.
 */
import { readFileSync } from 'node:fs';
import type { Config, TronNetwork } from '../config.js';
import { configFile } from '../paths.js';

interface NetworkDefaults {
  full_node_url: string;
  description: string;
  /** The id of the network's genesis block (block 0); absent for the devnet, whose every chain is new. */
  genesis_block_id?: string;
}

let cached: Record<TronNetwork, NetworkDefaults> | null = null;

export function networkDefaults(network: TronNetwork): NetworkDefaults {
  cached ??= JSON.parse(readFileSync(configFile('networks.json'), 'utf8')) as Record<TronNetwork, NetworkDefaults>;
  const d = cached[network];
  if (!d?.full_node_url) throw new Error(`config/networks.json has no full_node_url for ${network}`);
  return d;
}

/** The java-tron HTTP endpoint to use: TRON_FULL_NODE_URL, else the network's default. */
export function fullNodeUrl(config: Pick<Config, 'tronNetwork' | 'tronFullNodeUrl'>): string {
  return config.tronFullNodeUrl ?? networkDefaults(config.tronNetwork).full_node_url;
}

/** The genesis block id a node of `network` must answer; null when any is accepted (the devnet). */
export function knownGenesisId(network: TronNetwork): string | null {
  return networkDefaults(network).genesis_block_id?.toLowerCase() ?? null;
}

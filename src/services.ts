/**
 * What routes and background workers need, built once by the composition root (src/app.ts). It
 * lives apart from app.ts so that routes and workers never import the composition root.
 *
 * `Services` holds no secret: route handlers, metrics and scheduled jobs get it, and none of them
 * signs. Only the background workers get `WorkerServices`, which adds the wallet's signer.
 */
import type { Logger } from 'pino';
import type { DepositAddressAllocator } from './addresses/allocator.js';
import type { AssetCatalog } from './assets/catalog.js';
import type { TronClient } from './chain/client.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import type { ApiKeyVerifier } from './keys/verifier.js';
import type { Signer } from './wallet/signer.js';

export interface Services {
  config: Config;
  clock: Clock;
  logger: Logger;
  db: Db;
  /** Reads of scheduled scans, on a connection of their own (Database.scans); tests may leave it out. */
  scans?: Db;
  verifier: ApiKeyVerifier;
  /** The asset catalog of config.tronNetwork. */
  catalog: AssetCatalog;
  /** Deposit address allocation from the wallet's xpub (never the seed). */
  addresses: DepositAddressAllocator;
  /** The java-tron HTTP API of TRON_FULL_NODE_URL (or the network default); makes no request until used. */
  chain: TronClient;
  /**
   * Where customers reach the payment page, once its listener runs (its address, or PAY_PUBLIC_URL);
   * absent: computed from the configuration (src/config.ts payUrl).
   */
  payUrl?: () => string;
}

/**
 * What the background workers get (runtime/host.ts): the services plus the signer made at start
 * from the unlocked keystore; null where the wallet is not unlocked (nothing can be signed, and the
 * payout worker and the sweeper do not run). Only the payout worker and the sweeper read it.
 */
export interface WorkerServices extends Services {
  signer: Signer | null;
}

/**
 * Composition root: builds everything from a Config. `paygate serve`, `paygate demo`, the tests
 * and the benchmarks all build the app here, the same way.
 */
import type { Logger } from 'pino';
import type { BusyPolicy } from './db/driver.js';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import { openDatabase, type Database, type Db } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { startCheckpointer, type Checkpointer } from './db/checkpointer.js';
import { registerV1Routes } from './http/routes.js';
import { buildHttpServer, type ApiServer } from './http/server.js';
import { ApiKeyVerifier, type VerifierOptions } from './keys/verifier.js';
import { createLogger } from './logger.js';
import { loadCatalog, type AssetCatalog } from './assets/catalog.js';
import { DepositAddressAllocator, type AllocatorOptions } from './addresses/allocator.js';
import { startScheduler, type Scheduler } from './workers/scheduler.js';
import type { UnlockedWallet } from './wallet/keystore.js';
import { unlockWallet } from './wallet/service.js';

/** What route plugins and workers need; grows as features land. */
export interface Services {
  config: Config;
  clock: Clock;
  logger: Logger;
  db: Db;
  verifier: ApiKeyVerifier;
  /** The asset catalog of config.tronNetwork. */
  catalog: AssetCatalog;
  /** Deposit address allocation from the wallet's xpub (never the seed). */
  addresses: DepositAddressAllocator;
  /** The unlocked wallet (serve only, for the signing workers to come); null elsewhere. */
  wallet: UnlockedWallet | null;
}

export interface AppOptions {
  clock?: Clock;
  logger?: Logger;
  verifier?: VerifierOptions;
  /** Deposit address allocation (tests lower the index limit). */
  addresses?: AllocatorOptions;
  /**
   * Unlock the wallet keystore with WALLET_PASSPHRASE before anything else (serve): a missing
   * keystore or a wrong passphrase stops the start.
   */
  unlockWallet?: boolean;
  /** Run the scheduled jobs (expiry) after start; default true. */
  scheduler?: boolean;
  /** How long a write waits for a lock held by another process (default 10 s), then 503. */
  busy?: BusyPolicy;
  /** Extra routes (benchmarks and tests of the HTTP layer register probes here). */
  extraRoutes?: (app: ApiServer, services: Services) => Promise<void>;
}

export interface App {
  config: Config;
  services: Services;
  database: Database;
  http: ApiServer;
  /** Starts listening (and, later, the workers); resolves to the base URL. */
  start(): Promise<string>;
  stop(): Promise<void>;
}

export async function buildApp(config: Config, opts: AppOptions = {}): Promise<App> {
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger ?? createLogger(config.logLevel);
  // The server's own connection never checkpoints on the event loop; the worker started below does.
  const database = openDatabase(config.databasePath, { busy: opts.busy, autoCheckpoint: false });
  let checkpointer: Checkpointer | null = null;
  await migrateToLatest(database.db);
  const verifier = new ApiKeyVerifier(database.db, clock, { changeMarker: () => String(database.authGeneration()), ...opts.verifier });
  let wallet: UnlockedWallet | null = null;
  try {
    if (opts.unlockWallet) wallet = await unlockWallet(database.db, clock, config);
  } catch (e) {
    await database.close();
    throw e;
  }
  const catalog = loadCatalog(config.tronNetwork);
  const addresses = new DepositAddressAllocator(opts.addresses);
  const services: Services = { config, clock, logger, db: database.db, verifier, catalog, addresses, wallet };
  let scheduler: Scheduler | null = null;
  const http = await buildHttpServer({ config, clock, logger, verifier }, async (app) => {
    await registerV1Routes(app, services);
    if (opts.extraRoutes) await opts.extraRoutes(app, services);
  });

  let stopped = false;
  return {
    config,
    services,
    database,
    http,
    async start() {
      checkpointer = await startCheckpointer(config.databasePath);
      void addresses.start(database.db).catch((err: unknown) => logger.error({ err }, 'deposit address pool failed to start'));
      if (opts.scheduler !== false) scheduler = startScheduler(services);
      const address = await http.listen({ host: config.host, port: config.port });
      return address.replace('[::1]', '127.0.0.1');
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await scheduler?.stop();
      await http.close();
      await addresses.stop();
      await database.close();
      await checkpointer?.stop();
    },
  };
}

/**
 * Composition root: builds everything from a Config. `paygate serve`, `paygate demo`, the tests
 * and the benchmarks all build the app here, the same way.
 */
import type { Logger } from 'pino';
import type { Services } from './services.js';
import type { TronClient } from './chain/client.js';
import { createTronClient } from './chain/tronweb-client.js';
import { fullNodeUrl } from './chain/networks.js';
import { startWorkerHost, type WorkerHost, type WorkerHostOptions } from './runtime/host.js';
import { backgroundWorkers, scheduledJobs } from './background.js';
import type { BusyPolicy } from './db/driver.js';
import { systemClock, type Clock } from './clock.js';
import { payUrl, type Config } from './config.js';
import { openDatabase, type Database } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { assertDatabaseFileExists, assertSchemaPresent } from './db/presence.js';
import { registerV1Routes } from './http/routes.js';
import { buildHttpServer, type ApiServer } from './http/server.js';
import { openSharedRateCounts } from './http/rate-counts.js';
import { ApiKeyVerifier, type VerifierOptions } from './keys/verifier.js';
import { createLogger } from './logger.js';
import { loadCatalog } from './assets/catalog.js';
import { DepositAddressAllocator, type AllocatorOptions } from './addresses/allocator.js';
import { createSigner, type Signer } from './wallet/signer.js';
import { unlockWallet } from './wallet/service.js';
import { buildAdminServer, type AdminOptions } from './operations/admin.js';
import { requireBuiltPage } from './cabinet/page.js';
import { buildCabinetServer, type CabinetOptions } from './cabinet/server.js';
import { buildPayServer, type PayOptions } from './pay/server.js';
import {
  createMetrics,
  httpLatency,
  instrumentHttp,
  type AppMetrics,
  type ListenerLabel,
} from './operations/metrics.js';
import './operations/wiring.js';
import { useMail } from './mail/wiring.js';

export type { Services } from './services.js';

/** One listener of the process: its server, where it listens, and its base URL once it does. */
interface Listener {
  /** The shutdown step's name while it closes. */
  step: string;
  server: ApiServer;
  host: string;
  port: number;
  url: string | null;
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
  /**
   * Refuse a database that does not exist (`database_not_found`) instead of creating it: serve
   * migrates an existing database but never creates one. Tests and the demo build apps over new ones.
   */
  existingDatabase?: boolean;
  /**
   * Run the background work (watcher, sweeper, payout worker, dispatcher, scheduled jobs) under the
   * worker lease after start; default true. false: this process serves /v1 only.
   */
  workers?: boolean;
  /** Lease timing and which workers run (tests narrow it). */
  workerHost?: WorkerHostOptions;
  /** The TRON client (default: TRON_FULL_NODE_URL or the network's default node). */
  chain?: TronClient;
  /** How long a write waits for a lock held by another process (default 10 s), then 503. */
  busy?: BusyPolicy;
  /** Extra routes (benchmarks and tests of the HTTP layer register probes here). */
  extraRoutes?: (app: ApiServer, services: Services) => Promise<void>;
  /** The admin listener (/healthz, /readyz, /metrics on ADMIN_HOST:ADMIN_PORT); false: none. */
  admin?: false | AdminOptions;
  /** The cabinet listener (/cabinet/v1 and its page on CABINET_HOST:CABINET_PORT); false: none. */
  cabinet?: false | CabinetOptions;
  /** The payment page's listener (/pay/{id} and /pay/v1 on PAY_HOST:PAY_PORT); false: none. */
  pay?: false | PayOptions;
}

export interface App {
  config: Config;
  services: Services;
  database: Database;
  http: ApiServer;
  /** The background work of this process (null before start or with workers: false). */
  readonly workers: WorkerHost | null;
  /** Prometheus registry and probes of this app. */
  metrics: AppMetrics;
  /** Base URL of the admin listener once started (null before start or with admin: false). */
  readonly adminUrl: string | null;
  /** The cabinet listener's server (null with cabinet: false). */
  cabinet: ApiServer | null;
  /** Base URL of the cabinet listener once started (null before start or with cabinet: false). */
  readonly cabinetUrl: string | null;
  /** The payment page's listener's server (null with pay: false). */
  pay: ApiServer | null;
  /** Base URL of the payment page's listener once started (null before start or with pay: false). */
  readonly payUrl: string | null;
  /** Starts listening and the worker host; resolves to the base URL. */
  start(): Promise<string>;
  stop(): Promise<void>;
  /** The shutdown steps still running while stop() is under way. */
  readonly stopping: ReadonlySet<string>;
}

export async function buildApp(config: Config, opts: AppOptions = {}): Promise<App> {
  const clock = opts.clock ?? systemClock;
  useMail(config);
  const logger = opts.logger ?? createLogger(config.logLevel);
  if (opts.existingDatabase) assertDatabaseFileExists(config);
  const database = openDatabase(config.database, { busy: opts.busy });
  try {
    if (opts.existingDatabase) await assertSchemaPresent(database.db, config);
    await migrateToLatest(database.db);
  } catch (e) {
    await database.close();
    throw e;
  }
  const verifier = new ApiKeyVerifier(database.db, clock, opts.verifier);
  // The secret stays here and in the workers that sign: never in `services`, which routes,
  // metrics and scheduled jobs get.
  let signer: Signer | null = null;
  try {
    if (opts.unlockWallet) signer = createSigner(await unlockWallet(database.db, clock, config));
  } catch (e) {
    await database.close();
    throw e;
  }
  const catalog = loadCatalog(config.tronNetwork);
  const addresses = new DepositAddressAllocator(opts.addresses);
  const chain = opts.chain ?? createTronClient({ fullHost: fullNodeUrl(config), apiKey: config.tronApiKey });
  const services: Services = {
    config,
    clock,
    logger,
    db: database.db,
    scans: database.scans,
    verifier,
    catalog,
    addresses,
    chain,
  };
  let workers: WorkerHost | null = null;
  const metrics = createMetrics({ services, workers: () => workers, probe: opts.admin ? opts.admin.probe : undefined });
  const stopping = new Set<string>();
  const latency = httpLatency(metrics.registry);
  const timed = (label: ListenerLabel) => (app: ApiServer) => instrumentHttp(app, latency, label);
  const rateCounts = await openSharedRateCounts(config, logger);
  const http = await buildHttpServer({ config, logger, verifier, rateCounts }, async (app) => {
    timed('v1')(app);
    await registerV1Routes(app, services);
    if (opts.extraRoutes) await opts.extraRoutes(app, services);
  });
  const admin = opts.admin === false ? null : await buildAdminServer(services, metrics, opts.admin, timed('admin'));
  const cabinet =
    opts.cabinet === false ? null : await buildCabinetServer(services, opts.cabinet, rateCounts, timed('cabinet'));
  const pay = opts.pay === false ? null : await buildPayServer(services, opts.pay, rateCounts, timed('pay'));

  // Every listener of the process, in the order they start listening; they close in the reverse
  // order. The public one listens last, once the workers run, and closes first while they stop;
  // the admin listener answers the probes until the others are closed.
  const listeners: Listener[] = [
    ...(admin ? [{ step: 'admin listener', server: admin, host: config.adminHost, port: config.adminPort }] : []),
    ...(cabinet
      ? [{ step: 'cabinet listener', server: cabinet, host: config.cabinetHost, port: config.cabinetPort }]
      : []),
    ...(pay ? [{ step: 'payment page listener', server: pay, host: config.payHost, port: config.payPort }] : []),
    { step: 'api listener', server: http, host: config.host, port: config.port },
  ].map((l) => ({ ...l, url: null }));
  const urlOf = (server: ApiServer | null) => listeners.find((l) => l.server === server)?.url ?? null;
  services.payUrl = () => (config.payPublicUrl ? payUrl(config) : (urlOf(pay) ?? payUrl(config)));

  let stopped = false;
  return {
    config,
    services,
    database,
    http,
    get workers() {
      return workers;
    },
    metrics,
    get adminUrl() {
      return urlOf(admin);
    },
    cabinet,
    get cabinetUrl() {
      return urlOf(cabinet);
    },
    pay,
    get payUrl() {
      return urlOf(pay);
    },
    async start() {
      if (cabinet) requireBuiltPage();
      for (const l of listeners) {
        if (l.server === http && opts.workers !== false)
          workers = startWorkerHost(
            services,
            {
              workers: backgroundWorkers,
              jobs: scheduledJobs,
              ttlMs: config.workerLeaseTtlMs,
              renewMs: Math.floor(config.workerLeaseTtlMs / 5),
              ...opts.workerHost,
            },
            signer,
          );
        l.url = (await l.server.listen({ host: l.host, port: l.port })).replace('[::1]', '127.0.0.1');
      }
      return urlOf(http) as string;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      // Each step is named while it runs, so a shutdown that takes too long can say where it is.
      const step = async (name: string, work: () => Promise<unknown> | undefined) => {
        stopping.add(name);
        await work();
        stopping.delete(name);
      };
      // Workers stop at a safe point while fastify lets in-flight requests finish (new ones: 503);
      // the listeners close one after the other, the public one first.
      const closeListeners = async () => {
        for (const l of [...listeners].reverse()) await step(l.step, () => l.server.close());
      };
      await Promise.all([step('workers', () => workers?.stop()), closeListeners()]);
      await step('rate limit counters', () => rateCounts?.close());
      // A client passed in belongs to the caller (tests share one between apps).
      if (!opts.chain) await step('chain client', () => chain.close?.());
      await step('database', () => database.close());
    },
    stopping,
  };
}

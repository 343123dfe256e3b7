import { buildApp } from '../src/app.js';
import { checkChainAtStart } from '../src/chain/identity.js';
import { PaygateCommand, loadDotEnv } from '../src/cli/base.js';
import { assertCabinetCookieReachable, databaseLabel, parseConfig, redisLabel } from '../src/config.js';
import { requestsInFlight } from '../src/http/in-flight.js';
import { poolCounts } from '../src/db/postgres.js';
import { heapLimitNotSet, SERVE_NODE_FLAGS } from '../src/operations/heap.js';

export default class Serve extends PaygateCommand {
  static override description =
    'Run the merchant API (/v1), the admin listener (/healthz, /readyz, /metrics on ADMIN_HOST:ADMIN_PORT) and the background jobs until SIGINT/SIGTERM; needs the database and the wallet (paygate init) and its passphrase, refuses a database that does not exist (database_not_found) and a node of another chain than the one the database belongs to (wrong_network). Logs are JSON lines on stdout; a short banner is added only when stdout is a terminal. On SIGTERM it finishes in-flight requests, stops the workers at a safe point and exits 0.';
  static override examples = [
    'WALLET_PASSPHRASE_FILE=/etc/paygate/passphrase <%= config.bin %> serve',
    'PORT=8081 ADMIN_PORT=9190 CABINET_PORT=9191 PAY_PORT=8182 <%= config.bin %> serve   # a second process on the same database: /v1 only until it takes the worker lease',
  ];

  /**
   * With --json the result (after the shutdown) and an error are one line each, as the log lines
   * around them: a collector reading stdout parses every line.
   */
  override logJson(json: unknown): void {
    process.stdout.write(`${JSON.stringify(json)}\n`);
  }

  async run(): Promise<{ url: string; admin_url: string | null; cabinet_url: string | null; pay_url: string | null }> {
    await this.parse(Serve);
    loadDotEnv();
    // Refuses a database that does not exist (never creates one), migrates an existing one, then
    // refuses to start without the keystore or with a wrong passphrase: better now than at the
    // first sweep or payout.
    const parsed = parseConfig(process.env);
    // A cabinet on plain HTTP beyond loopback would never get its Secure cookie back: refused before anything opens.
    assertCabinetCookieReachable(parsed);
    const app = await buildApp(parsed, {
      unlockWallet: true,
      existingDatabase: true,
    });
    let url: string;
    try {
      // A node of another chain than the database's is refused before anything listens.
      await checkChainAtStart(app.database.db, app.services.clock, app.config, app.services.logger);
      url = await app.start();
    } catch (e) {
      // A port in use, a node of another chain: release what was opened so the process can exit with the error.
      await app.stop();
      throw e;
    }
    // Listening for the stop signals before saying it serves: a supervisor that sends SIGTERM as soon
    // as it reads the line below must get the orderly shutdown, not the default action (death).
    const stopSignal = new Promise<string>((resolve) => {
      process.once('SIGINT', () => resolve('SIGINT'));
      process.once('SIGTERM', () => resolve('SIGTERM'));
    });
    const { config, logger } = app.services;
    const heapLimitMb = heapLimitNotSet();
    if (heapLimitMb) {
      logger.warn(
        { heapLimitMb },
        `started without ${SERVE_NODE_FLAGS.join(' ')}: on a large machine memory under load may grow ~50 MB past what it needs (docs/operations/setup.md, "Memory")`,
      );
    }
    const database = databaseLabel(config.database);
    logger.info(
      {
        url,
        admin: app.adminUrl,
        cabinet: app.cabinetUrl,
        pay: app.payUrl,
        network: config.tronNetwork,
        database,
        // Where the rate limits count: Redis shared by the replicas, or this process alone.
        rate_limits: config.redisUrl ? redisLabel(config.redisUrl) : 'this process',
        ...(app.database.engine === 'sqlite'
          ? { sqlite: app.database.settings() }
          : { postgres: await app.database.settings() }),
      },
      'paygate serving /v1',
    );
    // The human banner is for a terminal only: stdout piped to a collector (systemd's journal,
    // Docker) carries JSON lines alone, and the line above says the same.
    if (process.stdout.isTTY) {
      this.say(`paygate serving ${url}/v1 (database ${database})`);
      if (app.adminUrl) this.say(`admin listener ${app.adminUrl} (/healthz, /readyz, /metrics)`);
      if (app.cabinetUrl) this.say(`merchant cabinet ${app.cabinetUrl} (/cabinet/v1 and its web page)`);
      if (app.payUrl) this.say(`payment page ${app.payUrl} (/pay/{invoice_id} and /pay/v1, for customers)`);
    }
    const signal = await stopSignal;
    logger.info({ signal }, 'shutting down: finishing in-flight requests, stopping workers');
    // Every step is crash-safe, so a shutdown stuck somewhere is ended like a SIGKILL would end it,
    // but first it says where it is stuck, and with exit code 1.
    const watchdog = setTimeout(() => {
      logger.error(
        {
          pending: [...app.stopping],
          afterMs: config.shutdownTimeoutMs,
          in_flight: [
            ...requestsInFlight(app.http, 'api'),
            ...(app.cabinet ? requestsInFlight(app.cabinet, 'cabinet') : []),
            ...(app.pay ? requestsInFlight(app.pay, 'pay') : []),
          ],
          ...(app.database.engine === 'postgres' ? { pool: poolCounts(app.database.pool) } : {}),
        },
        'shutdown did not finish in time; exiting without it',
      );
      process.exit(1);
    }, config.shutdownTimeoutMs);
    watchdog.unref();
    await app.stop();
    clearTimeout(watchdog);
    logger.info('stopped');
    // Everything is closed; a node request abandoned by a stopping worker must not hold the process.
    setTimeout(() => process.exit(0), 1_000).unref();
    return { url, admin_url: app.adminUrl, cabinet_url: app.cabinetUrl, pay_url: app.payUrl };
  }
}

import { buildApp } from '../src/app.js';
import { PaygateCommand, loadDotEnv } from '../src/cli/base.js';
import { parseConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { systemClock } from '../src/clock.js';
import { unlockWallet } from '../src/wallet/service.js';

export default class Serve extends PaygateCommand {
  static override description =
    'Run the merchant API (/v1) and the background jobs until SIGINT/SIGTERM; needs the wallet (paygate init) and its passphrase';

  async run(): Promise<{ url: string }> {
    await this.parse(Serve);
    loadDotEnv();
    const config = parseConfig(process.env);
    // Refuse to start without the keystore or with a wrong passphrase: better now than at the first
    // sweep or payout. (Nothing in serve signs yet; the sweeper and payout worker will take the
    // unlocked wallet from here.)
    const setup = openDatabase(config.databasePath);
    try {
      await migrateToLatest(setup.db);
      await unlockWallet(setup.db, systemClock, config);
    } finally {
      await setup.close();
    }
    const app = await buildApp(config);
    const url = await app.start();
    app.services.logger.info({ url, network: config.tronNetwork, database: config.databasePath }, 'paygate serving /v1');
    this.say(`paygate serving ${url}/v1 (database ${config.databasePath})`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    app.services.logger.info('shutting down');
    await app.stop();
    return { url };
  }
}

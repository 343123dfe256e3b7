import { buildApp } from '../src/app.js';
import { PaygateCommand, loadDotEnv } from '../src/cli/base.js';
import { parseConfig } from '../src/config.js';
import { SERVE_POOL_AHEAD } from '../src/wallet/pool.js';

export default class Serve extends PaygateCommand {
  static override description =
    'Run the merchant API (/v1) and the background jobs until SIGINT/SIGTERM; needs the wallet (paygate init) and its passphrase';

  async run(): Promise<{ url: string }> {
    await this.parse(Serve);
    loadDotEnv();
    // Migrates, then refuses to start without the keystore or with a wrong passphrase: better now
    // than at the first sweep or payout.
    const app = await buildApp(parseConfig(process.env), { unlockWallet: true, addresses: { pool: { ahead: SERVE_POOL_AHEAD } } });
    const url = await app.start();
    const { config, logger } = app.services;
    logger.info({ url, network: config.tronNetwork, database: config.databasePath }, 'paygate serving /v1');
    this.say(`paygate serving ${url}/v1 (database ${config.databasePath})`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    logger.info('shutting down');
    await app.stop();
    return { url };
  }
}

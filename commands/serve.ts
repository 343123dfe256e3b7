import { buildApp } from '../src/app.js';
import { PaygateCommand, loadDotEnv } from '../src/cli/base.js';
import { parseConfig } from '../src/config.js';

export default class Serve extends PaygateCommand {
  static override description = 'Run the merchant API (/v1) and the background workers until SIGINT/SIGTERM';

  async run(): Promise<{ url: string }> {
    await this.parse(Serve);
    loadDotEnv();
    const config = parseConfig(process.env);
    const app = await buildApp(config);
    const url = await app.start();
    app.services.logger.info({ url, network: config.tronNetwork, database: config.databasePath }, 'paygate serving /v1');
    this.say(`paygate serving ${url}/v1 (database ${config.databasePath})`);
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    app.services.logger.info('shutting down');
    await app.stop();
    return { url };
  }
}

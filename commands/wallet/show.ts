import { PaygateCommand } from '../../src/cli/base.js';
import { record } from '../../src/cli/format.js';
import { walletSummary, type WalletSummary } from '../../src/wallet/service.js';

export default class WalletShow extends PaygateCommand {
  static override description = 'Show the hot wallet address, the deposit account xpub and how many deposit addresses are in use (no passphrase needed)';
  static override examples = ['<%= config.bin %> wallet show'];

  async run(): Promise<WalletSummary> {
    await this.parse(WalletShow);
    const ctx = await this.context();
    const s = await walletSummary(ctx.database.db);
    this.say(record({ ...s }));
    return s;
  }
}

import { PaygateCommand } from '../../src/cli/base.js';
import { record } from '../../src/cli/format.js';
import { loadCatalog } from '../../src/assets/catalog.js';
import { fullNodeUrl } from '../../src/chain/networks.js';
import { createTronClient } from '../../src/chain/tronweb-client.js';
import { walletOverview, type WalletOverview } from '../../src/wallet/overview.js';

export default class WalletShow extends PaygateCommand {
  static override description =
    'Show the hot wallet (address, balances, energy and bandwidth from the node), the deposit account xpub, deposit addresses in use and what they still hold, and payouts waiting with their reasons (no passphrase needed)';
  static override examples = ['<%= config.bin %> wallet show', '<%= config.bin %> wallet show --json'];

  async run(): Promise<WalletOverview> {
    await this.parse(WalletShow);
    const ctx = await this.context();
    const chain = createTronClient({
      fullHost: fullNodeUrl(ctx.config),
      apiKey: ctx.config.tronApiKey,
      timeoutMs: 5_000,
      retries: 1,
    });
    const out = await walletOverview(ctx.database.db, chain, loadCatalog(ctx.config.tronNetwork));
    this.say(record({ ...out }));
    return out;
  }
}

import { PaygateCommand } from '../../src/cli/base.js';
import { record } from '../../src/cli/format.js';
import { loadCatalog } from '../../src/assets/catalog.js';
import { fullNodeUrl } from '../../src/chain/networks.js';
import { createTronClient } from '../../src/chain/tronweb-client.js';
import { treasurySummary, type TreasuryView } from '../../src/sweeper/summary.js';
import { walletSummary, type WalletSummary } from '../../src/wallet/service.js';
import { waitingPayouts, type WaitingPayout } from '../../src/payouts/worker/store.js';

export default class WalletShow extends PaygateCommand {
  static override description =
    'Show the hot wallet (address, balances, energy and bandwidth from the node), the deposit account xpub, deposit addresses in use and what they still hold, and payouts waiting with their reasons (no passphrase needed)';
  static override examples = ['<%= config.bin %> wallet show', '<%= config.bin %> wallet show --json'];

  async run(): Promise<WalletSummary & TreasuryView & { payouts_waiting: WaitingPayout[] }> {
    await this.parse(WalletShow);
    const ctx = await this.context();
    const s = await walletSummary(ctx.database.db);
    const chain = createTronClient({
      fullHost: fullNodeUrl(ctx.config),
      apiKey: ctx.config.tronApiKey,
      timeoutMs: 5_000,
      retries: 1,
    });
    const treasury = await treasurySummary(ctx.database.db, chain, loadCatalog(ctx.config.tronNetwork), s.hot_address);
    // payouts_waiting: what the payout worker holds back and why (hot wallet short, a limit…).
    const out = { ...s, ...treasury, payouts_waiting: await waitingPayouts(ctx.database.db) };
    this.say(record({ ...out }));
    return out;
  }
}

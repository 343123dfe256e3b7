import { PaygateCommand } from '../../src/cli/base.js';
import { record } from '../../src/cli/format.js';
import { walletSummary, type WalletSummary } from '../../src/wallet/service.js';
import { waitingPayouts, type WaitingPayout } from '../../src/payouts/worker/store.js';

export default class WalletShow extends PaygateCommand {
  static override description = 'Show the hot wallet address, the deposit account xpub and how many deposit addresses are in use (no passphrase needed)';
  static override examples = ['<%= config.bin %> wallet show'];

  async run(): Promise<WalletSummary & { payouts_waiting: WaitingPayout[] }> {
    await this.parse(WalletShow);
    const ctx = await this.context();
    // payouts_waiting: what the payout worker holds back and why (hot wallet short, a limit…).
    const s = { ...(await walletSummary(ctx.database.db)), payouts_waiting: await waitingPayouts(ctx.database.db) };
    this.say(record({ ...s }));
    return s;
  }
}

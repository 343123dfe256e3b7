import { loadCatalog } from '../../src/assets/catalog.js';
import { PaygateCommand } from '../../src/cli/base.js';
import { idArg } from '../../src/cli/flags.js';
import { table } from '../../src/cli/format.js';
import { merchantBalances, type MerchantBalancesView } from '../../src/ledger/operator.js';

export default class MerchantBalance extends PaygateCommand {
  static override description =
    "A merchant's ledger balances per asset: available (usable by new payouts), reserved (held by open payouts) and total";
  static override examples = ['<%= config.bin %> merchant balance 6f1c2b9e-3a47-4d2e-9b1a-0c8d5e7f4a21'];
  static override args = { id: idArg('merchant id') };

  async run(): Promise<MerchantBalancesView> {
    const { args } = await this.parse(MerchantBalance);
    const ctx = await this.context();
    const v = await merchantBalances(ctx.database.db, loadCatalog(ctx.config.tronNetwork), args.id);
    this.say(
      table(
        v.balances.map((b) => ({ ...b })),
        ['asset', 'available', 'reserved', 'total'],
      ),
    );
    return v;
  }
}

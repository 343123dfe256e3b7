import { PaygateCommand } from '../../src/cli/base.js';
import { table } from '../../src/cli/format.js';
import { loadCatalog } from '../../src/assets/catalog.js';
import { listAssets, type AssetView } from '../../src/assets/service.js';

export default class AssetList extends PaygateCommand {
  static override description = 'List the asset catalog of TRON_NETWORK with the payments/payouts switches in force';
  static override examples = ['<%= config.bin %> asset list', '<%= config.bin %> asset list --json'];

  async run(): Promise<{ network: string; assets: AssetView[] }> {
    await this.parse(AssetList);
    const ctx = await this.context();
    const assets = await listAssets(ctx.database.db, loadCatalog(ctx.config.tronNetwork));
    this.say(
      table(
        assets.map((a) => ({
          ...a,
          payments: a.payments ? 'on' : 'off',
          payouts: a.payouts ? 'on' : 'off',
          locked: a.locked.join(',') || '-',
        })),
        ['asset', 'contract', 'decimals', 'minimum_deposit', 'payments', 'payouts', 'receive_only', 'locked'],
      ),
    );
    return { network: ctx.config.tronNetwork, assets };
  }
}

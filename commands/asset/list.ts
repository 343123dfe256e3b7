import { PaygateCommand } from '../../src/cli/base.js';
import { pageFlags, pageQuery, pageTable, type Paged } from '../../src/cli/list.js';
import { pageInOrder } from '../../src/operators/paging.js';
import { loadCatalog } from '../../src/assets/catalog.js';
import { listAssets, type AssetView } from '../../src/assets/service.js';

export default class AssetList extends PaygateCommand {
  static override description = 'List the asset catalog of TRON_NETWORK with the payments/payouts switches in force';
  static override examples = ['<%= config.bin %> asset list', '<%= config.bin %> asset list --json'];

  static override flags = { ...pageFlags };

  async run(): Promise<Paged<AssetView>> {
    const { flags } = await this.parse(AssetList);
    const q = pageQuery(flags);
    const ctx = await this.context();
    const assets = await listAssets(ctx.database.db, loadCatalog(ctx.config.tronNetwork));
    const page = pageInOrder(assets, q, (a) => a.asset);
    this.say(`network ${ctx.config.tronNetwork}`);
    this.say(
      pageTable(
        {
          ...page,
          data: page.data.map((a) => ({
            ...a,
            payments: a.payments ? 'on' : 'off',
            payouts: a.payouts ? 'on' : 'off',
            locked: a.locked.join(',') || '-',
          })),
        },
        ['asset', 'contract', 'decimals', 'minimum_deposit', 'payments', 'payouts', 'receive_only', 'locked'],
        this,
      ),
    );
    return page;
  }
}

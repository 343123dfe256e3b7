import { PaygateCommand } from '../../src/cli/base.js';
import { pageFlags, pageQuery, pageTable, type Paged } from '../../src/cli/list.js';
import { pageOfRows } from '../../src/operators/paging.js';
import { allOwners, type OwnerView } from '../../src/owners/service.js';

export default class OwnerList extends PaygateCommand {
  static override description =
    'List owner accounts of the merchant cabinet, newest first: status (setup_pending, active, disabled), second factor, merchants';
  static override examples = ['<%= config.bin %> owner list', '<%= config.bin %> owner list --json'];
  static override flags = { ...pageFlags };

  async run(): Promise<Paged<OwnerView>> {
    const { flags } = await this.parse(OwnerList);
    const q = pageQuery(flags);
    const ctx = await this.context();
    const page = pageOfRows(await allOwners(ctx.database.db), q, (o) => ({ at: o.created_at, id: o.owner_id }));
    this.say(
      pageTable(
        { ...page, data: page.data.map((o) => ({ ...o, merchants: o.merchant_ids.join(',') || '-' })) },
        ['email', 'status', 'totp', 'merchants', 'created_at'],
        this,
      ),
    );
    return page;
  }
}

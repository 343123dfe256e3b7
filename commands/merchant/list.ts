import { PaygateCommand } from '../../src/cli/base.js';
import { pageFlags, pageQuery, pageTable, type Paged } from '../../src/cli/list.js';
import { toPage } from '../../src/http/pagination.js';
import { allMerchants, type MerchantView } from '../../src/merchants/service.js';
import { pageLimit, pageRequest } from '../../src/operators/paging.js';

export default class MerchantList extends PaygateCommand {
  static override description = 'List merchants, newest first, a page at a time (--limit, --cursor)';
  static override examples = ['<%= config.bin %> merchant list', '<%= config.bin %> merchant list --limit 500 --json'];
  static override flags = { ...pageFlags };

  async run(): Promise<Paged<MerchantView>> {
    const { flags } = await this.parse(MerchantList);
    const q = pageQuery(flags);
    const ctx = await this.context();
    const rows = await allMerchants(ctx.database.db, pageRequest(q));
    const page = toPage(rows, pageLimit(q), (m) => ({ at: m.created_at, id: m.merchant_id }));
    this.say(
      pageTable(
        page as unknown as Paged<Record<string, unknown>>,
        ['merchant_id', 'name', 'address_mode', 'approval', 'enabled', 'created_at'],
        this,
      ),
    );
    return page;
  }
}

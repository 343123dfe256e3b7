import { PaygateCommand } from '../../src/cli/base.js';
import { table } from '../../src/cli/format.js';
import { allMerchants, type MerchantView } from '../../src/merchants/service.js';

export default class MerchantList extends PaygateCommand {
  static override description = 'List merchants';
  static override examples = ['<%= config.bin %> merchant list', '<%= config.bin %> merchant list --json'];

  async run(): Promise<{ merchants: MerchantView[] }> {
    await this.parse(MerchantList);
    const ctx = await this.context();
    const merchants = await allMerchants(ctx.database.db);
    this.say(
      table(merchants as unknown as Array<Record<string, unknown>>, [
        'merchant_id',
        'name',
        'address_mode',
        'approval',
        'enabled',
        'created_at',
      ]),
    );
    return { merchants };
  }
}

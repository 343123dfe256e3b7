import { PaygateCommand } from '../../src/cli/base.js';
import { table } from '../../src/cli/format.js';
import { allOwners, type OwnerView } from '../../src/owners/service.js';

export default class OwnerList extends PaygateCommand {
  static override description =
    'List owner accounts of the merchant cabinet: status (setup_pending, active, disabled), second factor, merchants';
  static override examples = ['<%= config.bin %> owner list', '<%= config.bin %> owner list --json'];

  async run(): Promise<{ owners: OwnerView[] }> {
    await this.parse(OwnerList);
    const ctx = await this.context();
    const owners = await allOwners(ctx.database.db);
    this.say(
      table(
        owners.map((o) => ({ ...o, merchants: o.merchant_ids.join(',') || '-' })),
        ['email', 'status', 'totp', 'merchants', 'created_at'],
      ),
    );
    return { owners };
  }
}

import { PaygateCommand } from '../../src/cli/base.js';
import { idArg } from '../../src/cli/flags.js';
import { record } from '../../src/cli/format.js';
import { merchantDetails, type MerchantDetails } from '../../src/merchants/settings.js';

export default class MerchantShow extends PaygateCommand {
  static override description = 'Show a merchant with its settings and payout review limits';
  static override examples = ['<%= config.bin %> merchant show 6f1c2b9e-3a47-4d2e-9b1a-0c8d5e7f4a21'];
  static override args = { id: idArg('merchant id') };

  async run(): Promise<MerchantDetails> {
    const { args } = await this.parse(MerchantShow);
    const ctx = await this.context();
    const shown = await merchantDetails(ctx.database.db, args.id);
    this.say(record({ ...shown }));
    return shown;
  }
}

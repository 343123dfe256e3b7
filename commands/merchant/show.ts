import { Args } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { record } from '../../src/cli/format.js';
import { showMerchant, type MerchantView } from '../../src/merchants/service.js';

export default class MerchantShow extends PaygateCommand {
  static override description = 'Show a merchant';
  static override args = { id: Args.string({ required: true, description: 'merchant id' }) };

  async run(): Promise<MerchantView> {
    const { args } = await this.parse(MerchantShow);
    const ctx = await this.context();
    const m = await showMerchant(ctx.database.db, args.id);
    this.say(record({ ...m }));
    return m;
  }
}

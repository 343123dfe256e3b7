import { Args, Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { record } from '../../src/cli/format.js';
import { AppError } from '../../src/errors.js';
import { updateMerchantSettings, type MerchantView, type UpdateMerchantInput } from '../../src/merchants/service.js';

export default class MerchantUpdate extends PaygateCommand {
  static override description = "Change a merchant's settings: allowed redirect origins (an empty value clears one) and its confirmations policy";
  static override examples = ['<%= config.bin %> merchant update 6f1c… --site-url https://shop.example --return-url ""', '<%= config.bin %> merchant update 6f1c… --confirmations 25'];
  static override args = { id: Args.string({ required: true, description: 'merchant id' }) };
  static override flags = {
    'site-url': Flags.string({ description: "the merchant's site (allowed origin for return and cancel URLs)" }),
    'return-url': Flags.string({ description: 'allowed origin for return_url' }),
    'cancel-url': Flags.string({ description: 'allowed origin for cancel_url' }),
    confirmations: Flags.string({ description: 'confirmations before a deposit counts (1 to 1000; "default" restores CONFIRMATIONS)' }),
  };

  async run(): Promise<MerchantView> {
    const { args, flags } = await this.parse(MerchantUpdate);
    const input: UpdateMerchantInput = {};
    if (flags['site-url'] !== undefined) input.siteUrl = flags['site-url'];
    if (flags['return-url'] !== undefined) input.returnUrl = flags['return-url'];
    if (flags['cancel-url'] !== undefined) input.cancelUrl = flags['cancel-url'];
    if (flags.confirmations !== undefined) {
      const c = flags.confirmations;
      if (c !== 'default' && !/^[0-9]+$/.test(c)) throw new AppError('invalid_argument', '--confirmations must be a whole number from 1 to 1000, or "default"');
      input.confirmations = c === 'default' ? null : Number(c);
    }
    if (Object.keys(input).length === 0) throw new AppError('invalid_argument', 'Nothing to update: give at least one flag');
    const ctx = await this.context();
    const m = await updateMerchantSettings(ctx.database.db, ctx.clock, ctx.actor, args.id, input);
    this.say(record({ ...m }));
    return m;
  }
}

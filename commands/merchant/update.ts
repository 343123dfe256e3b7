import { Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { idArg } from '../../src/cli/flags.js';
import { record } from '../../src/cli/format.js';
import { AppError } from '../../src/errors.js';
import { updateMerchant, type MerchantChanges, type MerchantDetails } from '../../src/merchants/settings.js';

export default class MerchantUpdate extends PaygateCommand {
  static override description =
    "Change a merchant's settings: allowed redirect origins (an empty value clears one) and its confirmations policy";
  static override examples = [
    '<%= config.bin %> merchant update 6f1c2b9e-3a47-4d2e-9b1a-0c8d5e7f4a21 --site-url https://shop.example --return-url ""',
    '<%= config.bin %> merchant update 6f1c2b9e-3a47-4d2e-9b1a-0c8d5e7f4a21 --confirmations 25',
  ];
  static override args = { id: idArg('merchant id') };
  static override flags = {
    'site-url': Flags.string({ description: "the merchant's site (allowed origin for return and cancel URLs)" }),
    'return-url': Flags.string({ description: 'allowed origin for return_url' }),
    'cancel-url': Flags.string({ description: 'allowed origin for cancel_url' }),
    confirmations: Flags.string({
      description: 'confirmations before a deposit counts (1 to 1000; "default" restores CONFIRMATIONS)',
    }),
    'payout-auto-approve-limit': Flags.string({
      description:
        'payouts above this amount (units of the payout asset) go to review; "none" for no limit (default 0: every payout is reviewed)',
    }),
    'payout-daily-limit': Flags.string({
      description: 'payouts of one asset in a UTC day above this total go to review; "none" for no limit (the default)',
    }),
  };

  async run(): Promise<MerchantDetails> {
    const { args, flags } = await this.parse(MerchantUpdate);
    const changes: MerchantChanges = {
      siteUrl: flags['site-url'],
      returnUrl: flags['return-url'],
      cancelUrl: flags['cancel-url'],
      payoutAutoApproveLimit: flags['payout-auto-approve-limit'],
      payoutDailyLimit: flags['payout-daily-limit'],
    };
    if (flags.confirmations !== undefined) {
      const c = flags.confirmations;
      if (c !== 'default' && !/^[0-9]+$/.test(c))
        throw new AppError('invalid_argument', '--confirmations must be a whole number from 1 to 1000, or "default"');
      changes.confirmations = c === 'default' ? null : Number(c);
    }
    const ctx = await this.context();
    const m = await updateMerchant(ctx.database.db, ctx.clock, ctx.actor, args.id, changes);
    this.say(record({ ...m }));
    return m;
  }
}

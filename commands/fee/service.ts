import { Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { idArg } from '../../src/cli/flags.js';
import { record } from '../../src/cli/format.js';
import { setServiceFee, type ServiceFeeView } from '../../src/fees/service.js';

export default class FeeService extends PaygateCommand {
  static override description =
    "Set a merchant's service fee on invoices: percent of the requested amount and who pays it, from now or from --valid-from (above 3 percent needs --confirm-high-rate)";
  static override examples = [
    '<%= config.bin %> fee service 6f1c2b9e-3a47-4d2e-9b1a-0c8d5e7f4a21 --percent 1.5 --payer customer --valid-from 2026-04-01T00:00:00Z',
  ];
  static override args = { merchant: idArg('merchant id') };
  static override flags = {
    percent: Flags.string({ required: true, description: 'percent, e.g. 1.5 (at most 6 decimal places)' }),
    payer: Flags.string({ required: true, options: ['merchant', 'customer'], description: 'who pays the fee' }),
    'valid-from': Flags.string({ description: 'ISO 8601 moment the rate starts (default: now); must not be past' }),
    'confirm-high-rate': Flags.boolean({ default: false, description: 'confirm a rate above 3 percent' }),
  };

  async run(): Promise<ServiceFeeView> {
    const { args, flags } = await this.parse(FeeService);
    const ctx = await this.context();
    const v = await setServiceFee(ctx.database.db, ctx.clock, ctx.actor, args.merchant, {
      percent: flags.percent,
      payer: flags.payer,
      ...(flags['valid-from'] === undefined ? {} : { validFrom: flags['valid-from'] }),
      confirmHighRate: flags['confirm-high-rate'],
    });
    this.say(record({ ...v }));
    return v;
  }
}

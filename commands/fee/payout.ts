import { Flags } from '@oclif/core';
import { loadCatalog } from '../../src/assets/catalog.js';
import { PaygateCommand } from '../../src/cli/base.js';
import { record } from '../../src/cli/format.js';
import { setPayoutFee, type PayoutFeeView } from '../../src/fees/payout.js';

export default class FeePayout extends PaygateCommand {
  static override description =
    'Set the payout fee of an asset, charged to the merchant on every new payout: a fixed amount plus a percent of the payout amount, from now or from --valid-from (above 5 units needs --confirm-high-amount, above 3 percent --confirm-high-rate)';
  static override examples = ['<%= config.bin %> fee payout --asset USDT_TRON --amount 1 --percent 0.5'];
  static override flags = {
    asset: Flags.string({ required: true, description: 'asset code, e.g. USDT_TRON' }),
    amount: Flags.string({ required: true, description: 'fixed part in the asset (0 for none)' }),
    percent: Flags.string({ required: true, description: 'percent of the payout amount, e.g. 0.5 (0 for none)' }),
    'valid-from': Flags.string({ description: 'ISO 8601 moment the fee starts (default: now); must not be past' }),
    'confirm-high-amount': Flags.boolean({
      default: false,
      description: 'confirm a fixed part above 5 units of the asset',
    }),
    'confirm-high-rate': Flags.boolean({ default: false, description: 'confirm a percent above 3' }),
  };

  async run(): Promise<PayoutFeeView> {
    const { flags } = await this.parse(FeePayout);
    const ctx = await this.context();
    const v = await setPayoutFee(ctx.database.db, ctx.clock, ctx.actor, loadCatalog(ctx.config.tronNetwork), {
      asset: flags.asset,
      amount: flags.amount,
      percent: flags.percent,
      ...(flags['valid-from'] === undefined ? {} : { validFrom: flags['valid-from'] }),
      confirmHighAmount: flags['confirm-high-amount'],
      confirmHighRate: flags['confirm-high-rate'],
    });
    this.say(record({ ...v }));
    return v;
  }
}

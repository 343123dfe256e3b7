import { Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { record } from '../../src/cli/format.js';
import { loadCatalog } from '../../src/assets/catalog.js';
import { setInvoiceFee, type InvoiceFeeView } from '../../src/fees/service.js';

export default class FeeInvoice extends PaygateCommand {
  static override description =
    'Set the fixed receiving amount of an asset, added to the service fee of every new invoice in it, from now or from --valid-from (above 5 units needs --confirm-high-amount)';
  static override examples = ['<%= config.bin %> fee invoice --asset USDT_TRON --amount 0.5'];
  static override flags = {
    asset: Flags.string({ required: true, description: 'asset code, e.g. USDT_TRON' }),
    amount: Flags.string({ required: true, description: 'amount in the asset; 0 removes it' }),
    'valid-from': Flags.string({ description: 'ISO 8601 moment the amount starts (default: now); must not be past' }),
    'confirm-high-amount': Flags.boolean({
      default: false,
      description: 'confirm an amount above 5 units of the asset',
    }),
  };

  async run(): Promise<InvoiceFeeView> {
    const { flags } = await this.parse(FeeInvoice);
    const ctx = await this.context();
    const v = await setInvoiceFee(ctx.database.db, ctx.clock, ctx.actor, loadCatalog(ctx.config.tronNetwork), {
      asset: flags.asset,
      amount: flags.amount,
      ...(flags['valid-from'] === undefined ? {} : { validFrom: flags['valid-from'] }),
      confirmHighAmount: flags['confirm-high-amount'],
    });
    this.say(record({ ...v }));
    return v;
  }
}

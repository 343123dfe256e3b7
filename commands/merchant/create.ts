import { Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { record } from '../../src/cli/format.js';
import { createMerchant, type MerchantView } from '../../src/merchants/service.js';

export default class MerchantCreate extends PaygateCommand {
  static override description = 'Create a merchant (pending approval, enabled)';
  static override examples = [
    '<%= config.bin %> merchant create --name "Coffee shop" --site-url https://coffee.example',
  ];
  static override flags = {
    name: Flags.string({ required: true, description: 'display name' }),
    'address-mode': Flags.string({
      options: ['per_invoice', 'per_user'],
      default: 'per_invoice',
      description: 'a fresh address per invoice, or one permanent address per external user',
    }),
    'site-url': Flags.string({ description: "the merchant's site (allowed origin for return and cancel URLs)" }),
    'return-url': Flags.string({ description: 'allowed origin for return_url' }),
    'cancel-url': Flags.string({ description: 'allowed origin for cancel_url' }),
    'legacy-network-fee-payer': Flags.string({
      options: ['customer'],
      description: 'legacy setting: the customer pays the network fee (invoices are then refused)',
    }),
  };

  async run(): Promise<MerchantView> {
    const { flags } = await this.parse(MerchantCreate);
    const ctx = await this.context();
    const m = await createMerchant(ctx.database.db, ctx.clock, ctx.actor, {
      name: flags.name,
      addressMode: flags['address-mode'] as 'per_invoice' | 'per_user',
      siteUrl: flags['site-url'] ?? null,
      returnUrl: flags['return-url'] ?? null,
      cancelUrl: flags['cancel-url'] ?? null,
      legacyNetworkFeePayer: (flags['legacy-network-fee-payer'] as 'customer' | undefined) ?? null,
    });
    this.say(record({ ...m }));
    return m;
  }
}

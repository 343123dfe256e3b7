import { Flags } from '@oclif/core';
import { Value } from '@sinclair/typebox/value';
import { loadCatalog } from '../../src/assets/catalog.js';
import { PaygateCommand } from '../../src/cli/base.js';
import { durationFlag, idArg } from '../../src/cli/flags.js';
import { record } from '../../src/cli/format.js';
import { payUrl } from '../../src/config.js';
import { AppError } from '../../src/errors.js';
import { requireMerchant } from '../../src/merchants/service.js';
import { CreatePageInvoiceBody, type PageInvoiceView } from '../../src/pay/schema.js';
import { parsePrice } from '../../src/pay/price.js';
import { createPageInvoice } from '../../src/pay/service.js';

/** The flag each body field comes from, to name it in a refusal. */
const FLAG_OF: Record<string, string> = {
  order_id: '--order-id',
  price: '--price',
  expires_in: '--expires-in',
  currencies: '--currency',
  description: '--description',
  external_user_id: '--external-user-id',
  return_url: '--return-url',
  cancel_url: '--cancel-url',
};

export default class InvoiceCreate extends PaygateCommand {
  static override description =
    'Create an invoice priced in dollars that the customer pays in the token they pick on the payment page; prints its checkout_url, the link to send the customer';
  static override examples = [
    '<%= config.bin %> invoice create 6f1c2b9e-3a47-4d2e-9b1a-0c8d5e7f4a21 --price 19.99 --order-id order-1042 --description "Logo design"',
    '<%= config.bin %> invoice create 6f1c2b9e-3a47-4d2e-9b1a-0c8d5e7f4a21 --price 5 --order-id o-7 --currency USDT_TRON --currency USDC_TRON --expires-in 24h',
  ];
  static override args = { merchant: idArg('merchant id') };
  static override flags = {
    price: Flags.string({
      required: true,
      description: 'the price in US dollars, e.g. 19.99 (one token is one dollar)',
    }),
    'order-id': Flags.string({ required: true, description: "the merchant's order id (one space with /v1 invoices)" }),
    currency: Flags.string({
      multiple: true,
      description: 'a dollar-pegged asset to offer (repeat for more); default: every one the merchant receives now',
    }),
    'expires-in': durationFlag({
      description: 'the term of the invoice, 60s to 7d',
      default: '3600',
      maxMs: 604_800_000,
    }),
    description: Flags.string({ description: 'what the customer pays for, shown on the page (1 to 200 characters)' }),
    'external-user-id': Flags.string({ description: "the paying user's id (required for a per_user merchant)" }),
    'return-url': Flags.string({ description: 'where the customer returns after paying' }),
    'cancel-url': Flags.string({ description: 'where the customer goes from an expired invoice' }),
  };

  async run(): Promise<PageInvoiceView> {
    const { args, flags } = await this.parse(InvoiceCreate);
    const ms = flags['expires-in'];
    if (ms % 1000 !== 0) throw new AppError('invalid_argument', '--expires-in must be whole seconds');
    const body = {
      order_id: flags['order-id'],
      price: flags.price,
      expires_in: ms / 1000,
      ...(flags.currency ? { currencies: flags.currency } : {}),
      ...(flags.description === undefined ? {} : { description: flags.description }),
      ...(flags['external-user-id'] === undefined ? {} : { external_user_id: flags['external-user-id'] }),
      ...(flags['return-url'] === undefined ? {} : { return_url: flags['return-url'] }),
      ...(flags['cancel-url'] === undefined ? {} : { cancel_url: flags['cancel-url'] }),
    };
    // The routes' own schema: the CLI accepts exactly what the cabinet and the console accept.
    const problem = Value.Errors(CreatePageInvoiceBody, body).First();
    if (problem) {
      const field = problem.path.split('/')[1] ?? '';
      throw new AppError('invalid_argument', `${FLAG_OF[field] ?? field}: ${problem.message}`);
    }
    try {
      parsePrice(body.price);
    } catch (e) {
      throw new AppError('invalid_argument', `--price ${(e as Error).message}`);
    }
    const ctx = await this.context();
    const db = ctx.database.db;
    const merchant = await requireMerchant(db, args.merchant);
    const { invoice } = await createPageInvoice(
      { db, clock: ctx.clock, catalog: loadCatalog(ctx.config.tronNetwork), payUrl: () => payUrl(ctx.config) },
      merchant,
      body,
      ctx.actor,
    );
    this.say(record({ ...invoice, currencies: invoice.currencies.join(' ') }));
    return invoice;
  }
}

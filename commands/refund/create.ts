import { Flags } from '@oclif/core';
import { loadCatalog } from '../../src/assets/catalog.js';
import { PaygateCommand } from '../../src/cli/base.js';
import { idArg } from '../../src/cli/flags.js';
import { record } from '../../src/cli/format.js';
import { payUrl } from '../../src/config.js';
import { invoiceOfAnyMerchant } from '../../src/refunds/operator.js';
import type { RefundView } from '../../src/refunds/schema.js';
import { createRefund } from '../../src/refunds/service.js';

export default class RefundCreate extends PaygateCommand {
  static override description =
    "Refund (part of) an invoice from its merchant's balance: amount plus the payout fee reserved at once; prints the claim_url to send the customer (valid 30 days)";
  static override examples = [
    '<%= config.bin %> refund create 0b7e4f2a-5c1d-4e8b-9a3f-6d2c1b0e9f87 --amount 5 --reason "paid twice"',
  ];
  static override args = { invoice: idArg('invoice id') };
  static override flags = {
    amount: Flags.string({ required: true, description: 'amount to send back, decimal text' }),
    asset: Flags.string({ description: "the invoice's asset by default, or the asset of one of its foreign deposits" }),
    reason: Flags.string({ description: 'why (shown to the merchant)' }),
    exception: Flags.string({ description: 'an open exception of this invoice the refund answers' }),
  };

  async run(): Promise<RefundView> {
    const { args, flags } = await this.parse(RefundCreate);
    const ctx = await this.context();
    const db = ctx.database.db;
    const inv = await invoiceOfAnyMerchant(db, args.invoice);
    const deps = {
      db,
      clock: ctx.clock,
      catalog: loadCatalog(ctx.config.tronNetwork),
      payUrl: () => payUrl(ctx.config),
    };
    const body = {
      amount: flags.amount,
      ...(flags.asset ? { asset: flags.asset } : {}),
      ...(flags.reason ? { reason: flags.reason } : {}),
      ...(flags.exception ? { exception_id: flags.exception } : {}),
    };
    const v = await createRefund(deps, inv.merchant_id, inv.id, body, ctx.actor);
    this.say(record({ ...v }));
    return v;
  }
}

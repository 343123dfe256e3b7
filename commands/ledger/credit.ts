import { Args, Flags } from '@oclif/core';
import { loadCatalog } from '../../src/assets/catalog.js';
import { PaygateCommand } from '../../src/cli/base.js';
import { record } from '../../src/cli/format.js';
import { creditMerchant, type CreditView } from '../../src/ledger/operator.js';

export default class LedgerCredit extends PaygateCommand {
  static override description = "Credit a merchant's balance in an asset (an operator correction: one ledger entry, audited)";
  static override examples = ['<%= config.bin %> ledger credit 6f1c… --asset USDT_TRON --amount 250 --memo "refund of double fee, ticket 4411"'];
  static override args = { merchant: Args.string({ required: true, description: 'merchant id' }) };
  static override flags = {
    asset: Flags.string({ required: true, description: 'asset code, e.g. USDT_TRON' }),
    amount: Flags.string({ required: true, description: 'amount in the asset, greater than zero' }),
    memo: Flags.string({ required: true, description: 'why (kept in the ledger entry and the audit log)' }),
  };

  async run(): Promise<CreditView> {
    const { args, flags } = await this.parse(LedgerCredit);
    const ctx = await this.context();
    const v = await creditMerchant(ctx.database.db, ctx.clock, ctx.actor, loadCatalog(ctx.config.tronNetwork), args.merchant, {
      asset: flags.asset,
      amount: flags.amount,
      memo: flags.memo,
    });
    this.say(record({ entry_id: v.entry_id, merchant_id: v.merchant_id, asset: v.asset, amount: v.amount, memo: v.memo, available: v.balance.available, reserved: v.balance.reserved, created_at: v.created_at }));
    return v;
  }
}

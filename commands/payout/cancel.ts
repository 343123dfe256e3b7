import { Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { idArg } from '../../src/cli/flags.js';
import { record } from '../../src/cli/format.js';
import { cancelPayout, type OperatorPayoutView } from '../../src/payouts/operator.js';

export default class PayoutCancel extends PaygateCommand {
  static override description =
    'Stop a payout before it is signed: pending_review, approved or queued → rejected, reservation released (invalid_state once signing has begun)';
  static override examples = [
    '<%= config.bin %> payout cancel 0b7e4f2a-5c1d-4e8b-9a3f-6d2c1b0e9f87 --reason "merchant asked to stop it"',
  ];
  static override args = { id: idArg('payout id') };
  static override flags = {
    reason: Flags.string({ required: true, description: 'why (kept for the audit; not sent to the merchant)' }),
  };

  async run(): Promise<OperatorPayoutView> {
    const { args, flags } = await this.parse(PayoutCancel);
    const ctx = await this.context();
    const v = await cancelPayout(ctx.database.db, ctx.clock, ctx.actor, args.id, flags.reason);
    this.say(record({ ...v }));
    return v;
  }
}

import { Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { idArg } from '../../src/cli/flags.js';
import { record } from '../../src/cli/format.js';
import { rejectPayout, type OperatorPayoutView } from '../../src/payouts/operator.js';

export default class PayoutReject extends PaygateCommand {
  static override description =
    'Reject a payout in pending_review and release its reservation (invalid_state in any other status)';
  static override examples = [
    '<%= config.bin %> payout reject 0b7e4f2a-5c1d-4e8b-9a3f-6d2c1b0e9f87 --reason "address flagged by compliance"',
  ];
  static override args = { id: idArg('payout id') };
  static override flags = {
    reason: Flags.string({ required: true, description: 'why (kept for the audit; not sent to the merchant)' }),
  };

  async run(): Promise<OperatorPayoutView> {
    const { args, flags } = await this.parse(PayoutReject);
    const ctx = await this.context();
    const v = await rejectPayout(ctx.database.db, ctx.clock, ctx.actor, args.id, flags.reason);
    this.say(record({ ...v }));
    return v;
  }
}

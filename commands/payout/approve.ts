import { Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { idArg } from '../../src/cli/flags.js';
import { record } from '../../src/cli/format.js';
import { approvePayout, type OperatorPayoutView } from '../../src/payouts/operator.js';

export default class PayoutApprove extends PaygateCommand {
  static override description =
    'Approve a payout in pending_review: it then waits for the payout worker. Also lifts the hold paygate restore put on an unfinished payout, once you have checked on chain that it was not sent (invalid_state in any other case)';
  static override examples = ['<%= config.bin %> payout approve 0b7e4f2a-5c1d-4e8b-9a3f-6d2c1b0e9f87'];
  static override args = { id: idArg('payout id') };
  static override flags = {
    'chain-checked': Flags.boolean({
      description:
        'you checked the chain: none of the transfers out that paygate did not sign and that match a held payout paid it (required then; payout confirm --txid settles one that did)',
    }),
  };

  async run(): Promise<OperatorPayoutView> {
    const { args, flags } = await this.parse(PayoutApprove);
    const ctx = await this.context();
    const v = await approvePayout(ctx.database.db, ctx.clock, ctx.actor, args.id, {
      chainChecked: flags['chain-checked'],
    });
    this.say(record({ ...v }));
    return v;
  }
}

import { Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { idArg } from '../../src/cli/flags.js';
import { record } from '../../src/cli/format.js';
import { confirmPayoutFromChain } from '../../src/payouts/confirm.js';
import type { OperatorPayoutView } from '../../src/payouts/operator.js';

export default class PayoutConfirm extends PaygateCommand {
  static override description =
    'Settle a held payout that the chain shows was paid by a transfer out paygate did not sign: it becomes confirmed with that txid, its amount and fee debited, payout.confirmed sent, the transfer accounted for (hot_wallet_transfer_not_found; invalid_state when the transfer is not final or claimed, or the payout not held; transfer_mismatch for another asset, address or amount)';
  static override examples = [
    '<%= config.bin %> payout confirm 0b7e4f2a-5c1d-4e8b-9a3f-6d2c1b0e9f87 --txid 6f1c3a9d0b7e4f2a5c1d4e8b9a3f6d2c1b0e9f87a4d6c2e8b0f1a3c5e7d9e2a0',
  ];
  static override args = { id: idArg('payout id') };
  static override flags = {
    txid: Flags.string({
      required: true,
      description: 'the transaction that paid it (paygate payout list --unknown-on-chain)',
    }),
  };

  async run(): Promise<OperatorPayoutView> {
    const { args, flags } = await this.parse(PayoutConfirm);
    const ctx = await this.context();
    const v = await confirmPayoutFromChain(ctx.database.db, ctx.clock, ctx.actor, args.id, flags.txid);
    this.say(record({ ...v }));
    return v;
  }
}

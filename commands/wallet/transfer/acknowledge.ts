import { Args, Flags } from '@oclif/core';
import { PaygateCommand } from '../../../src/cli/base.js';
import { record, table } from '../../../src/cli/format.js';
import { acknowledgeTransfer, type AcknowledgedTransfer } from '../../../src/wallet/transfers.js';

export default class WalletTransferAcknowledge extends PaygateCommand {
  static override description =
    'Say that a transfer out of the hot wallet that paygate did not sign was yours (funds moved to cold storage on purpose): it stops counting in paygate_hot_wallet_unknown_transfers and /readyz, and is never matched to a payout held since a restore. Audited. Check first: a stolen key looks exactly like this';
  static override examples = [
    '<%= config.bin %> wallet transfer acknowledge 3f0c…e91a --reason "moved 20000 USDT to cold storage, ticket OPS-412"',
  ];
  static override args = {
    txid: Args.string({ required: true, description: 'the transaction id (64 hexadecimal characters)' }),
  };
  static override flags = {
    reason: Flags.string({ required: true, description: 'why it was yours (kept in the audit log)' }),
  };

  async run(): Promise<AcknowledgedTransfer> {
    const { args, flags } = await this.parse(WalletTransferAcknowledge);
    const ctx = await this.context();
    const out = await acknowledgeTransfer(ctx.database.db, ctx.clock, ctx.actor, args.txid, flags.reason);
    this.say(
      record({
        tx_hash: out.tx_hash,
        acknowledged_by: out.acknowledged_by,
        acknowledged_at: out.acknowledged_at,
        reason: out.reason,
      }),
    );
    this.say(
      table(
        out.transfers.map((t) => ({ ...t })),
        ['asset', 'amount', 'to_address', 'block_number', 'kind'],
      ),
    );
    this.say(`\nIt is ${out.note}.`);
    return out;
  }
}

import { Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { table } from '../../src/cli/format.js';
import { listUnattributedDeposits, type UnattributedDepositView } from '../../src/deposits/unattributed.js';
import { AppError } from '../../src/errors.js';

export default class DepositList extends PaygateCommand {
  static override description =
    'List unattributed deposits, newest first: payments to the addresses a restore skipped (indexes handed out after the backup, handed to no one since). They are credited to no merchant; docs/operations.md, "After a restore", says what to do with them. --unattributed is required: merchants\' deposits show in their invoices and balances.';
  static override examples = [
    '<%= config.bin %> deposit list --unattributed',
    '<%= config.bin %> deposit list --unattributed --json',
  ];
  static override flags = {
    unattributed: Flags.boolean({ description: "payments to addresses of a restore's derivation gap (required)" }),
    limit: Flags.integer({ default: 100, min: 1, max: 10000, description: 'at most this many' }),
  };

  async run(): Promise<UnattributedDepositView[]> {
    const { flags } = await this.parse(DepositList);
    if (!flags.unattributed)
      throw new AppError('invalid_argument', 'deposit list lists unattributed deposits only: pass --unattributed');
    const ctx = await this.context();
    const rows = await listUnattributedDeposits(ctx.database.db, flags.limit);
    this.say(
      table(
        rows.map((r) => ({ ...r })),
        [
          'address',
          'derivation_index',
          'asset',
          'amount',
          'from_address',
          'tx_hash',
          'log_index',
          'block_number',
          'block_time',
          'detected_at',
        ],
      ),
    );
    return rows;
  }
}

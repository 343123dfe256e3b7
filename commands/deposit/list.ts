import { Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { pageFlags, pageQuery, pageTable, type Paged } from '../../src/cli/list.js';
import { pageOfRows } from '../../src/operators/paging.js';
import { listUnattributedDeposits, type UnattributedDepositView } from '../../src/restore/unattributed-deposits.js';
import { AppError } from '../../src/errors.js';

export default class DepositList extends PaygateCommand {
  static override description =
    'List unattributed deposits, newest first: payments to the addresses a restore skipped (indexes handed out after the backup, handed to no one since). They are credited to no merchant; docs/operations/backups.md, "After a restore", says what to do with them. --unattributed is required: merchants\' deposits show in their invoices and balances.';
  static override examples = [
    '<%= config.bin %> deposit list --unattributed',
    '<%= config.bin %> deposit list --unattributed --json',
  ];
  static override flags = {
    unattributed: Flags.boolean({ description: "payments to addresses of a restore's derivation gap (required)" }),
    ...pageFlags,
  };

  async run(): Promise<Paged<UnattributedDepositView>> {
    const { flags } = await this.parse(DepositList);
    const q = pageQuery(flags);
    if (!flags.unattributed)
      throw new AppError('invalid_argument', 'deposit list lists unattributed deposits only: pass --unattributed');
    const ctx = await this.context();
    // Few rows (payments to addresses nobody holds): paged in memory.
    const rows = await listUnattributedDeposits(ctx.database.db, Number.MAX_SAFE_INTEGER);
    const page = pageOfRows(rows, q, (r) => ({ at: r.detected_at, id: `${r.tx_hash}:${r.log_index}` }));
    this.say(
      pageTable(
        page as unknown as Paged<Record<string, unknown>>,
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
        this,
      ),
    );
    return page;
  }
}

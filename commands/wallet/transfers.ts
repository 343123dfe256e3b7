import { Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { pageFlags, pageQuery, pageTable, type Paged } from '../../src/cli/list.js';
import { toPage } from '../../src/http/pagination.js';
import { pageLimit, pageRequest } from '../../src/operators/paging.js';
import { listHotWalletTransfers, transferKey, type HotWalletTransferView } from '../../src/wallet/transfers.js';

export default class WalletTransfers extends PaygateCommand {
  static override description =
    'List the transfers out of the hot wallet the watcher recorded, newest first, with what each one is: a payout (its id), a sweep top-up, a payout found on the chain after a restore, acknowledged by an operator, or unknown (paygate did not sign it: the alert)';
  static override examples = [
    '<%= config.bin %> wallet transfers',
    '<%= config.bin %> wallet transfers --unknown',
    '<%= config.bin %> wallet transfers --unknown --json',
  ];
  static override flags = {
    unknown: Flags.boolean({
      default: false,
      description: 'only the transfers paygate did not sign and nobody accounted for (those the alert counts)',
    }),
    ...pageFlags,
  };

  async run(): Promise<Paged<HotWalletTransferView>> {
    const { flags } = await this.parse(WalletTransfers);
    const q = pageQuery(flags);
    const ctx = await this.context();
    const request = pageRequest(q);
    const rows = await listHotWalletTransfers(ctx.database.db, {
      unknown: flags.unknown,
      limit: request.limit,
      after: request.after,
    });
    const page = toPage(rows, pageLimit(q), transferKey);
    this.say(
      pageTable(
        {
          next_cursor: page.next_cursor,
          data: page.data.map((t) => ({
            ...t,
            matched:
              t.kind === 'payout' || t.kind === 'restore_match'
                ? `${t.kind} ${t.payout_id}`
                : t.kind === 'sweep'
                  ? `sweep ${t.sweep_id}`
                  : t.kind === 'acknowledged'
                    ? `acknowledged by ${t.acknowledged_by}: ${t.acknowledge_reason}`
                    : 'unknown',
          })),
        },
        ['tx_hash', 'block_number', 'block_time', 'asset', 'amount', 'to_address', 'matched'],
        this,
      ),
    );
    return page;
  }
}

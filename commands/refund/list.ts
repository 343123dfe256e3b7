import { Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { idFlag } from '../../src/cli/flags.js';
import { pageFlags, pageQuery, pageTable, type Paged } from '../../src/cli/list.js';
import { REFUND_STATUSES, type RefundView } from '../../src/refunds/schema.js';
import { refundPage } from '../../src/refunds/service.js';

export default class RefundList extends PaygateCommand {
  static override description =
    'List refunds, newest first, a page at a time; the table shows id, status, asset, amount and invoice; --json gives every field (claim_url, address, payout)';
  static override examples = ['<%= config.bin %> refund list --status awaiting_address'];
  static override flags = {
    status: Flags.string({ options: [...REFUND_STATUSES], description: 'only refunds in this status' }),
    merchant: idFlag('only refunds of this merchant'),
    invoice: idFlag('only refunds of this invoice'),
    ...pageFlags,
  };

  async run(): Promise<Paged<RefundView>> {
    const { flags } = await this.parse(RefundList);
    const ctx = await this.context();
    const page = await refundPage(
      ctx.database.db,
      {
        ...(flags.status ? { status: flags.status as RefundView['status'] } : {}),
        ...(flags.merchant ? { merchantId: flags.merchant } : {}),
        ...(flags.invoice ? { invoiceId: flags.invoice } : {}),
      },
      pageQuery(flags),
    );
    this.say(
      pageTable(
        page as unknown as Paged<Record<string, unknown>>,
        ['refund_id', 'status', 'asset', 'amount', 'invoice_id'],
        this,
      ),
    );
    return page;
  }
}

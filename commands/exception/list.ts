import { Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { idFlag } from '../../src/cli/flags.js';
import { pageFlags, pageQuery, pageTable, type Paged } from '../../src/cli/list.js';
import { EXCEPTION_KINDS, type ExceptionKind } from '../../src/db/tables/exceptions.js';
import { pageExceptions, type ExceptionView } from '../../src/exceptions/service.js';

export default class ExceptionList extends PaygateCommand {
  static override description =
    'List exceptions, newest first: underpaid, overpaid and late invoices, deposits of another asset to an open invoice, unattributed deposits and held payouts (docs/exceptions.md). --json gives every field, the resolution included';
  static override examples = [
    '<%= config.bin %> exception list --open',
    '<%= config.bin %> exception list --merchant 0b7e4f2a-5c1d-4e8b-9a3f-6d2c1b0e9f87 --kind overpaid',
  ];
  static override flags = {
    merchant: idFlag('only exceptions of this merchant'),
    kind: Flags.string({ options: [...EXCEPTION_KINDS], description: 'only exceptions of this kind' }),
    open: Flags.boolean({ allowNo: true, description: 'only open ones (--no-open: only resolved ones)' }),
    ...pageFlags,
  };

  async run(): Promise<Paged<ExceptionView>> {
    const { flags } = await this.parse(ExceptionList);
    const ctx = await this.context();
    const page = await pageExceptions(ctx.database.db, {
      ...pageQuery(flags),
      ...(flags.merchant ? { merchant_id: flags.merchant } : {}),
      ...(flags.kind ? { kind: flags.kind as ExceptionKind } : {}),
      ...(flags.open !== undefined ? { open: flags.open ? 'true' : 'false' } : {}),
    });
    this.say(
      pageTable(
        page as unknown as Paged<Record<string, unknown>>,
        [
          'exception_id',
          'kind',
          'merchant_id',
          'invoice_id',
          'payout_id',
          'asset',
          'amount',
          'created_at',
          'resolved_at',
        ],
        this,
      ),
    );
    return page;
  }
}

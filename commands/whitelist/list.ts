import { Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { optionalIdArg } from '../../src/cli/flags.js';
import { pageFlags, pageQuery, pageTable, type Paged } from '../../src/cli/list.js';
import { toPage } from '../../src/http/pagination.js';
import { pageLimit, pageRequest } from '../../src/operators/paging.js';
import { listWhitelist, type WhitelistEntryView } from '../../src/whitelist/service.js';

export default class WhitelistList extends PaygateCommand {
  static override description =
    'List whitelist entries (of one merchant, or of all), newest first, with when each becomes usable';
  static override examples = [
    '<%= config.bin %> whitelist list 6f1c2b9e-3a47-4d2e-9b1a-0c8d5e7f4a21 --asset USDT_TRON',
  ];
  static override args = { merchant: optionalIdArg('merchant id (all merchants when omitted)') };
  static override flags = {
    asset: Flags.string({ description: 'only this asset' }),
    'include-removed': Flags.boolean({ default: false, description: 'also show removed entries' }),
    ...pageFlags,
  };

  async run(): Promise<Paged<WhitelistEntryView>> {
    const { args, flags } = await this.parse(WhitelistList);
    const q = pageQuery(flags);
    const ctx = await this.context();
    const rows = await listWhitelist(ctx.database.db, ctx.clock, {
      ...(args.merchant ? { merchantId: args.merchant } : {}),
      ...(flags.asset ? { asset: flags.asset } : {}),
      includeRemoved: flags['include-removed'],
      page: pageRequest(q),
    });
    const page = toPage(rows, pageLimit(q), (e) => ({ at: e.created_at, id: e.entry_id }));
    this.say(
      pageTable(
        page as unknown as Paged<Record<string, unknown>>,
        ['merchant_id', 'asset', 'address', 'usable_from', 'usable', 'removed_at'],
        this,
      ),
    );
    return page;
  }
}

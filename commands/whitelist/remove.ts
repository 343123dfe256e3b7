import { Flags } from '@oclif/core';
import { loadCatalog } from '../../src/assets/catalog.js';
import { PaygateCommand } from '../../src/cli/base.js';
import { idArg } from '../../src/cli/flags.js';
import { record } from '../../src/cli/format.js';
import { removeFromWhitelist, type WhitelistEntryView } from '../../src/whitelist/service.js';

export default class WhitelistRemove extends PaygateCommand {
  static override description =
    "Remove a payout address from a merchant's whitelist for an asset: new payouts to it are refused and pending ones cannot be approved (address_not_whitelisted when it is not listed)";
  static override examples = [
    '<%= config.bin %> whitelist remove 6f1c2b9e-3a47-4d2e-9b1a-0c8d5e7f4a21 --asset USDT_TRON --address TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH',
  ];
  static override args = { merchant: idArg('merchant id') };
  static override flags = {
    asset: Flags.string({ required: true, description: 'asset code, e.g. USDT_TRON' }),
    address: Flags.string({ required: true, description: 'TRON base58 address' }),
  };

  async run(): Promise<WhitelistEntryView> {
    const { args, flags } = await this.parse(WhitelistRemove);
    const ctx = await this.context();
    const v = await removeFromWhitelist(
      ctx.database.db,
      ctx.clock,
      ctx.actor,
      loadCatalog(ctx.config.tronNetwork),
      args.merchant,
      {
        asset: flags.asset,
        address: flags.address,
      },
    );
    this.say(record({ ...v }));
    return v;
  }
}

import { Flags } from '@oclif/core';
import { loadCatalog } from '../../src/assets/catalog.js';
import { PaygateCommand } from '../../src/cli/base.js';
import { idArg } from '../../src/cli/flags.js';
import { record } from '../../src/cli/format.js';
import { addToWhitelist, DEFAULT_DELAY, type AddResult } from '../../src/whitelist/service.js';

export default class WhitelistAdd extends PaygateCommand {
  static override description = `Put a payout address on a merchant's whitelist for an asset; it is usable once --delay has passed (default ${DEFAULT_DELAY}). Adding an address already listed: without --delay or with its own delay nothing changes; a longer --delay lengthens its delay (counted from when it was added, audited); a shorter one is refused (invalid_state: remove it and add it again).`;
  static override examples = [
    '<%= config.bin %> whitelist add 6f1c2b9e-3a47-4d2e-9b1a-0c8d5e7f4a21 --asset USDT_TRON --address TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH --delay 48h',
  ];
  static override args = { merchant: idArg('merchant id') };
  static override flags = {
    asset: Flags.string({ required: true, description: 'asset code, e.g. USDT_TRON' }),
    address: Flags.string({ required: true, description: 'TRON base58 address (checksum verified)' }),
    delay: Flags.string({
      description: `delay before first use: 500ms, 30s, 15m, 24h, 7d or plain seconds (default ${DEFAULT_DELAY})`,
    }),
  };

  async run(): Promise<AddResult> {
    const { args, flags } = await this.parse(WhitelistAdd);
    const ctx = await this.context();
    const r = await addToWhitelist(
      ctx.database.db,
      ctx.clock,
      ctx.actor,
      loadCatalog(ctx.config.tronNetwork),
      args.merchant,
      {
        asset: flags.asset,
        address: flags.address,
        ...(flags.delay === undefined ? {} : { delay: flags.delay }),
      },
    );
    if (r.delay_extended)
      this.say('Already on the whitelist; its delay is lengthened to --delay (counted from when it was added).');
    else if (!r.created)
      this.say('Already on the whitelist; the entry and its delay are unchanged (remove and add again to restart it).');
    this.say(record({ ...r.entry }));
    return r;
  }
}

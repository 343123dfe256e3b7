import { Args, Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { idArg } from '../../src/cli/flags.js';
import { record } from '../../src/cli/format.js';
import { loadCatalog } from '../../src/assets/catalog.js';
import { setMerchantAsset, type MerchantAssetView } from '../../src/assets/service.js';

export default class MerchantAsset extends PaygateCommand {
  static override description =
    "Switch receiving an asset on or off in a merchant's own settings (asset_disabled_by_merchant when off)";
  static override examples = [
    '<%= config.bin %> merchant asset 6f1c2b9e-3a47-4d2e-9b1a-0c8d5e7f4a21 USDD_TRON --payments off',
  ];
  static override args = {
    id: idArg('merchant id'),
    asset: Args.string({ required: true, description: 'asset code, e.g. USDT_TRON' }),
  };
  static override flags = {
    payments: Flags.string({ options: ['on', 'off'], required: true, description: 'receiving this asset' }),
  };

  async run(): Promise<MerchantAssetView> {
    const { args, flags } = await this.parse(MerchantAsset);
    const ctx = await this.context();
    const v = await setMerchantAsset(
      ctx.database.db,
      ctx.clock,
      ctx.actor,
      loadCatalog(ctx.config.tronNetwork),
      args.id,
      args.asset,
      flags.payments === 'on',
    );
    this.say(record({ ...v }));
    return v;
  }
}

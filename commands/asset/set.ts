import { Args, Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { record } from '../../src/cli/format.js';
import { loadCatalog } from '../../src/assets/catalog.js';
import { updateAsset, type AssetDetails } from '../../src/assets/settings.js';

const onOff = (description: string) => Flags.string({ options: ['on', 'off'], description });
const flag = (v: string | undefined) => (v === undefined ? undefined : v === 'on');

export default class AssetSet extends PaygateCommand {
  static override description =
    'Switch receiving (payments) or payouts of an asset on or off for every merchant (asset_flag_locked when the catalog forbids it), or set its sweep threshold';
  static override examples = [
    '<%= config.bin %> asset set USDT_TRON --payouts off',
    '<%= config.bin %> asset set USDT_TRON --sweep-threshold 50',
  ];
  static override args = { asset: Args.string({ required: true, description: 'asset code, e.g. USDT_TRON' }) };
  static override flags = {
    payments: onOff('receiving in this asset'),
    payouts: onOff('payouts in this asset'),
    'sweep-threshold': Flags.string({
      description:
        'sweep a deposit address automatically once it holds at least this much of the asset (0 = any amount worth its cost)',
    }),
  };

  async run(): Promise<AssetDetails> {
    const { args, flags } = await this.parse(AssetSet);
    const ctx = await this.context();
    const v = await updateAsset(
      ctx.database.db,
      ctx.clock,
      ctx.actor,
      loadCatalog(ctx.config.tronNetwork),
      args.asset,
      {
        payments: flag(flags.payments),
        payouts: flag(flags.payouts),
        sweepThreshold: flags['sweep-threshold'],
      },
    );
    this.say(record({ ...v }));
    return v;
  }
}

import { Args, Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { record } from '../../src/cli/format.js';
import { loadCatalog } from '../../src/assets/catalog.js';
import { listAssets, requireCatalogAsset, setAssetFlags, type AssetView } from '../../src/assets/service.js';
import { AppError } from '../../src/errors.js';
import { parseSweepThreshold, setSweepThreshold } from '../../src/sweeper/thresholds.js';

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

  async run(): Promise<AssetView & { sweep_threshold?: string }> {
    const { args, flags } = await this.parse(AssetSet);
    const ctx = await this.context();
    const catalog = loadCatalog(ctx.config.tronNetwork);
    const threshold = flags['sweep-threshold'];
    if (flags.payments === undefined && flags.payouts === undefined && threshold === undefined) {
      requireCatalogAsset(catalog, args.asset);
      throw new AppError('invalid_argument', 'Give --payments on|off, --payouts on|off and/or --sweep-threshold X');
    }
    // A bad threshold refuses the whole command before anything changes.
    if (threshold !== undefined) parseSweepThreshold(requireCatalogAsset(catalog, args.asset), threshold);
    let v: AssetView & { sweep_threshold?: string };
    if (flags.payments !== undefined || flags.payouts !== undefined) {
      v = await setAssetFlags(ctx.database.db, ctx.clock, ctx.actor, catalog, args.asset, {
        payments: flag(flags.payments),
        payouts: flag(flags.payouts),
      });
    } else {
      requireCatalogAsset(catalog, args.asset);
      v = (await listAssets(ctx.database.db, catalog)).find((a) => a.asset === args.asset) as AssetView;
    }
    if (threshold !== undefined)
      v = {
        ...v,
        sweep_threshold: (
          await setSweepThreshold(ctx.database.db, ctx.clock, ctx.actor, catalog, args.asset, threshold)
        ).sweep_threshold,
      };
    this.say(record({ ...v }));
    return v;
  }
}

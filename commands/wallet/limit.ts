import { Args, Flags } from '@oclif/core';
import { loadCatalog } from '../../src/assets/catalog.js';
import { PaygateCommand } from '../../src/cli/base.js';
import { record } from '../../src/cli/format.js';
import { setHotWalletLimit, type HotWalletLimitView } from '../../src/payouts/worker/limits.js';

export default class WalletLimit extends PaygateCommand {
  static override description =
    'Show or set what the payout worker may send from the hot wallet per asset: per payout, per UTC day, and the fee_limit cap (TRX) of a TRC20 transfer';
  static override examples = [
    '<%= config.bin %> wallet limit USDT_TRON',
    '<%= config.bin %> wallet limit USDT_TRON --per-payout 5000 --per-day 50000 --fee-limit 40',
    '<%= config.bin %> wallet limit USDT_TRON --per-day none --fee-limit default',
  ];
  static override args = { asset: Args.string({ required: true, description: 'asset code, e.g. USDT_TRON' }) };
  static override flags = {
    'per-payout': Flags.string({ description: 'largest amount of one payout, or "none"' }),
    'per-day': Flags.string({ description: 'sum of payouts signed per UTC day, or "none"' }),
    'fee-limit': Flags.string({ description: 'highest fee_limit of a TRC20 transfer in TRX, or "default" (100)' }),
  };

  async run(): Promise<HotWalletLimitView> {
    const { args, flags } = await this.parse(WalletLimit);
    const ctx = await this.context();
    const v = await setHotWalletLimit(
      ctx.database.db,
      ctx.clock,
      ctx.actor,
      loadCatalog(ctx.config.tronNetwork),
      args.asset,
      {
        ...(flags['per-payout'] !== undefined ? { perPayout: flags['per-payout'] } : {}),
        ...(flags['per-day'] !== undefined ? { perDay: flags['per-day'] } : {}),
        ...(flags['fee-limit'] !== undefined ? { feeLimit: flags['fee-limit'] } : {}),
      },
    );
    this.say(record({ ...v }));
    return v;
  }
}

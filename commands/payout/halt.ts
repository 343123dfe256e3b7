import { Flags } from '@oclif/core';
import { loadCatalog } from '../../src/assets/catalog.js';
import { PaygateCommand } from '../../src/cli/base.js';
import { table } from '../../src/cli/format.js';
import { setHalt, type HaltView } from '../../src/payouts/halts.js';

export default class PayoutHalt extends PaygateCommand {
  static override description = 'Halt payouts of one asset or of all: new requests get 503 payouts_halted (accepted payouts keep going); with --worker, the payout worker also stops executing queued payouts';
  static override examples = ['<%= config.bin %> payout halt', '<%= config.bin %> payout halt --asset USDT_TRON --worker'];
  static override flags = {
    asset: Flags.string({ description: 'only this asset (default: every asset)' }),
    worker: Flags.boolean({ default: false, description: "also halt the payout worker's execution of queued payouts" }),
    reason: Flags.string({ description: 'note for the audit log (never shown to merchants)' }),
  };

  async run(): Promise<{ halts: HaltView[] }> {
    const { flags } = await this.parse(PayoutHalt);
    const ctx = await this.context();
    const halts = await setHalt(ctx.database.db, ctx.clock, ctx.actor, loadCatalog(ctx.config.tronNetwork), {
      ...(flags.asset === undefined ? {} : { asset: flags.asset }),
      worker: flags.worker,
      halted: true,
      ...(flags.reason === undefined ? {} : { reason: flags.reason }),
    });
    this.say(halts.length === 0 ? 'No halts in force.' : table(halts.map((h) => ({ ...h })), ['scope', 'requests_halted', 'worker_halted', 'updated_at', 'updated_by']));
    return { halts };
  }
}

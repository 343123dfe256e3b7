import { Flags } from '@oclif/core';
import { loadCatalog } from '../../src/assets/catalog.js';
import { PaygateCommand } from '../../src/cli/base.js';
import { table } from '../../src/cli/format.js';
import { setHalt, type HaltView } from '../../src/payouts/halts.js';

export default class PayoutResume extends PaygateCommand {
  static override description = 'Lift a halt of the same scope (--asset or all): new requests are taken again; with --worker the payout worker resumes too';
  static override examples = ['<%= config.bin %> payout resume', '<%= config.bin %> payout resume --asset USDT_TRON --worker'];
  static override flags = {
    asset: Flags.string({ description: 'only this asset (default: every asset)' }),
    worker: Flags.boolean({ default: false, description: "also resume the payout worker" }),
    reason: Flags.string({ description: 'note for the audit log (never shown to merchants)' }),
  };

  async run(): Promise<{ halts: HaltView[] }> {
    const { flags } = await this.parse(PayoutResume);
    const ctx = await this.context();
    const halts = await setHalt(ctx.database.db, ctx.clock, ctx.actor, loadCatalog(ctx.config.tronNetwork), {
      ...(flags.asset === undefined ? {} : { asset: flags.asset }),
      worker: flags.worker,
      halted: false,
      ...(flags.reason === undefined ? {} : { reason: flags.reason }),
    });
    this.say(halts.length === 0 ? 'No halts in force.' : table(halts.map((h) => ({ ...h })), ['scope', 'requests_halted', 'worker_halted', 'updated_at', 'updated_by']));
    return { halts };
  }
}

/** `payout halt|resume [--asset A] [--worker] [--reason R]`: two brakes commands, one shape. */
import { Flags } from '@oclif/core';
import { loadCatalog } from '../assets/catalog.js';
import { setHalt, type HaltView } from '../payouts/halts.js';
import { PaygateCommand } from './base.js';
import { table } from './format.js';

const TEXT = {
  halt: {
    description:
      'Halt payouts of one asset or of all: new requests get 503 payouts_halted (accepted payouts keep going); with --worker, the payout worker also stops executing queued payouts',
    worker: "also halt the payout worker's execution of queued payouts",
  },
  resume: {
    description:
      'Lift a halt of the same scope (--asset or all): new requests are taken again; with --worker the payout worker resumes too',
    worker: 'also resume the payout worker',
  },
} as const;

export function haltCommand(action: keyof typeof TEXT) {
  const flags = {
    asset: Flags.string({ description: 'only this asset (default: every asset)' }),
    worker: Flags.boolean({ default: false, description: TEXT[action].worker }),
    reason: Flags.string({ description: 'note for the audit log (never shown to merchants)' }),
  };
  return class extends PaygateCommand {
    static override description = TEXT[action].description;
    static override examples = [
      `<%= config.bin %> payout ${action}`,
      `<%= config.bin %> payout ${action} --asset USDT_TRON --worker`,
    ];
    static override flags = flags;

    async run(): Promise<{ halts: HaltView[] }> {
      const parsed = await this.parse({ flags, baseFlags: PaygateCommand.baseFlags, enableJsonFlag: true });
      const ctx = await this.context();
      const { asset, worker, reason } = parsed.flags;
      const halts = await setHalt(ctx.database.db, ctx.clock, ctx.actor, loadCatalog(ctx.config.tronNetwork), {
        ...(asset === undefined ? {} : { asset }),
        worker,
        halted: action === 'halt',
        ...(reason === undefined ? {} : { reason }),
      });
      this.say(
        halts.length === 0
          ? 'No halts in force.'
          : table(
              halts.map((h) => ({ ...h })),
              ['scope', 'requests_halted', 'worker_halted', 'updated_at', 'updated_by'],
            ),
      );
      return { halts };
    }
  };
}

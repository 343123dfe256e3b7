/** `merchant approve|reject|enable|disable <id>`: four commands, one shape. */
import { Args } from '@oclif/core';
import { changeMerchant, type MerchantAction, type MerchantView } from '../merchants/service.js';
import { PaygateCommand } from './base.js';
import { idArg } from './flags.js';

const DESCRIPTIONS: Record<MerchantAction, string> = {
  approve: 'Approve a merchant after review: it may then create invoices and permanent addresses',
  reject: 'Reject a merchant: it cannot accept payments (keys and reads keep working)',
  enable: "Lift the operator's stop of a merchant (the owner's own switch in the cabinet stays as it is)",
  disable:
    "Disable a merchant (the operator's switch): its API keys answer 403 merchant_disabled; its owner cannot lift this stop",
};

export function merchantActionCommand(action: MerchantAction) {
  return class extends PaygateCommand {
    static override description = DESCRIPTIONS[action];
    static override examples = [`<%= config.bin %> merchant ${action} 6f1c2b9e-3a47-4d2e-9b1a-0c8d5e7f4a21`];
    static override args = { id: idArg('merchant id') };

    async run(): Promise<MerchantView> {
      const { args } = await this.parse(
        this.constructor as typeof PaygateCommand & { args: { id: ReturnType<typeof Args.string> } },
      );
      const ctx = await this.context();
      const m = await changeMerchant(ctx.database.db, ctx.clock, ctx.actor, args.id as string, action);
      const state = m.enabled ? 'enabled' : `disabled by ${m.disabled_by.join(' and ')}`;
      this.say(`Merchant ${m.merchant_id}: approval ${m.approval}, ${state}`);
      return m;
    }
  };
}

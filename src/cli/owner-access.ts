/** `owner grant|revoke <email> --merchant M`: two commands, one shape. */
import { Args, Flags } from '@oclif/core';
import type { MemberRole } from '../db/tables/cabinet.js';
import { grantOwnerMerchant, revokeOwnerMerchant, type OwnerView } from '../owners/service.js';
import { PaygateCommand } from './base.js';
import { lowerUuid } from './flags.js';

const ACTIONS = {
  grant: { description: 'Let an owner account see one more merchant in the cabinet', run: grantOwnerMerchant },
  revoke: {
    description:
      'Take a merchant away from an owner account: the cabinet answers merchant_not_found for it from the next request',
    run: revokeOwnerMerchant,
  },
} as const;

const merchantFlag = Flags.string({ description: 'merchant id', required: true, parse: lowerUuid });
const roleFlag = Flags.string({
  description: 'grant only: owner (everything) or viewer (reads, reports and exports)',
  options: ['owner', 'viewer'],
  default: 'owner',
});

export function ownerAccessCommand(action: keyof typeof ACTIONS) {
  return class extends PaygateCommand {
    static override description = ACTIONS[action].description;
    static override examples = [
      `<%= config.bin %> owner ${action} owner@shop.example --merchant 6f1c2b9e-3a47-4d2e-9b1a-0c8d5e7f4a21${action === 'grant' ? ' --role viewer' : ''}`,
    ];
    static override args = { email: Args.string({ required: true, description: "the owner's email" }) };
    static override flags: Record<string, typeof merchantFlag> =
      action === 'grant' ? { merchant: merchantFlag, role: roleFlag } : { merchant: merchantFlag };

    async run(): Promise<OwnerView> {
      const { args, flags } = await this.parse(
        this.constructor as typeof PaygateCommand & {
          args: { email: ReturnType<typeof Args.string> };
          flags: { merchant: typeof merchantFlag; role?: typeof roleFlag };
        },
      );
      const ctx = await this.context();
      const owner = await ACTIONS[action].run(
        ctx.database.db,
        ctx.clock,
        ctx.actor,
        args.email as string,
        flags.merchant,
        (flags.role ?? 'owner') as MemberRole,
      );
      this.say(`Owner ${owner.email} sees ${owner.merchant_ids.join(', ') || 'no merchant'}`);
      return owner;
    }
  };
}

/** `owner disable|enable <email>`: two commands, one shape. */
import { Args } from '@oclif/core';
import { setOwnerEnabled, type OwnerView } from '../owners/service.js';
import { PaygateCommand } from './base.js';

const DESCRIPTIONS = {
  disable:
    'Disable an owner account: its sessions end at once, sign-in and its setup link answer 401 (merchants are untouched)',
  enable: 'Enable a disabled owner account again (a new sign-in is needed; `owner reset` if the password is lost)',
} as const;

export function ownerSwitchCommand(action: keyof typeof DESCRIPTIONS) {
  return class extends PaygateCommand {
    static override description = DESCRIPTIONS[action];
    static override examples = [`<%= config.bin %> owner ${action} owner@shop.example`];
    static override args = { email: Args.string({ required: true, description: "the owner's email" }) };

    async run(): Promise<OwnerView & { sessions_ended: number }> {
      const { args } = await this.parse(
        this.constructor as typeof PaygateCommand & { args: { email: ReturnType<typeof Args.string> } },
      );
      const ctx = await this.context();
      const owner = await setOwnerEnabled(
        ctx.database.db,
        ctx.clock,
        ctx.actor,
        args.email as string,
        action === 'enable',
      );
      this.say(
        `Owner ${owner.email}: ${owner.status}${owner.sessions_ended ? `, ${owner.sessions_ended} session(s) ended` : ''}`,
      );
      return owner;
    }
  };
}

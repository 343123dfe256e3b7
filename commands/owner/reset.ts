import { Args } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { cabinetUrl } from '../../src/config.js';
import { resetOwner, type OwnerView, type SetupLink } from '../../src/owners/service.js';

export default class OwnerReset extends PaygateCommand {
  static override description =
    'A lost password or authenticator: clears the password and the second factor, ends every session and prints a new one-time setup link (24 h)';
  static override examples = ['<%= config.bin %> owner reset owner@shop.example'];
  static override args = { email: Args.string({ required: true, description: "the owner's email" }) };

  async run(): Promise<OwnerView & SetupLink> {
    const { args } = await this.parse(OwnerReset);
    const ctx = await this.context();
    const owner = await resetOwner(ctx.database.db, ctx.clock, ctx.actor, args.email, cabinetUrl(ctx.config));
    this.say(
      [
        `Owner ${owner.email}: password and second factor cleared, sessions ended.`,
        `One-time setup link (valid until ${owner.setup_expires_at}; shown once, give it to the owner):`,
        owner.setup_url,
      ].join('\n'),
    );
    return owner;
  }
}

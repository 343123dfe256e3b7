import { Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { idsFlag } from '../../src/cli/flags.js';
import { cabinetUrl } from '../../src/config.js';
import { createOwner, type OwnerView, type SetupLink } from '../../src/owners/service.js';

export default class OwnerCreate extends PaygateCommand {
  static override description =
    "Create a merchant owner's cabinet account for one or more merchants; prints a one-time setup link (24 h) where the owner chooses a password";
  static override examples = [
    '<%= config.bin %> owner create --email owner@shop.example --merchant 6f1c2b9e-3a47-4d2e-9b1a-0c8d5e7f4a21',
    '<%= config.bin %> owner create --email owner@shop.example --merchant 6f1c2b9e-3a47-4d2e-9b1a-0c8d5e7f4a21 --merchant 0b7d5a3c-91e2-4f6a-8c4d-2e1f9a7b6c50 --json',
  ];
  static override flags = {
    email: Flags.string({ required: true, description: "the owner's email address (the sign-in name)" }),
    merchant: idsFlag('a merchant id the account sees (repeat for more)'),
  };

  async run(): Promise<OwnerView & SetupLink> {
    const { flags } = await this.parse(OwnerCreate);
    const ctx = await this.context();
    const owner = await createOwner(ctx.database.db, ctx.clock, ctx.actor, {
      email: flags.email,
      merchantIds: flags.merchant,
      cabinetUrl: cabinetUrl(ctx.config),
    });
    this.say(
      [
        `Owner ${owner.email} (${owner.owner_id}) sees ${owner.merchant_ids.join(', ')}.`,
        `One-time setup link (valid until ${owner.setup_expires_at}; shown once, give it to the owner):`,
        owner.setup_url,
      ].join('\n'),
    );
    return owner;
  }
}

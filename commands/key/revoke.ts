import { Args } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { revokeKey, type KeyView } from '../../src/keys/service.js';

export default class KeyRevoke extends PaygateCommand {
  static override description = 'Revoke an API key; the API refuses it from the next request, on every replica';
  static override examples = ['<%= config.bin %> key revoke 3f9a0c1b2d4e5f60'];
  static override args = { key_id: Args.string({ required: true, description: 'the 16 hex characters after sk_' }) };

  async run(): Promise<KeyView> {
    const { args } = await this.parse(KeyRevoke);
    const ctx = await this.context();
    const key = await revokeKey(ctx.database.db, ctx.clock, ctx.actor, args.key_id);
    this.say(`Key ${key.key_id} revoked at ${key.revoked_at}`);
    return key;
  }
}

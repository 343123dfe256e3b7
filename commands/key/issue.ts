import { PaygateCommand } from '../../src/cli/base.js';
import { idArg } from '../../src/cli/flags.js';
import { issueKey, type IssuedKey } from '../../src/keys/service.js';

export default class KeyIssue extends PaygateCommand {
  static override description = 'Issue an API key for a merchant. The key is printed once and cannot be shown again';
  static override examples = [
    '<%= config.bin %> key issue 6f1c2b9e-3a47-4d2e-9b1a-0c8d5e7f4a21',
    '<%= config.bin %> key issue 6f1c2b9e-3a47-4d2e-9b1a-0c8d5e7f4a21 --json',
  ];
  static override args = { merchant: idArg('merchant id') };

  async run(): Promise<IssuedKey> {
    const { args } = await this.parse(KeyIssue);
    const ctx = await this.context();
    const key = await issueKey(ctx.database.db, ctx.clock, ctx.actor, args.merchant);
    this.say(`API key (shown once, store it now):\n${key.api_key}\nkey_id: ${key.key_id}`);
    return key;
  }
}

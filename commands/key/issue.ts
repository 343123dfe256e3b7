import { Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { idArg } from '../../src/cli/flags.js';
import { issuedSummary, termFlags, termsOf } from '../../src/cli/term-flags.js';
import { issueKey, type IssuedKey } from '../../src/keys/service.js';

export default class KeyIssue extends PaygateCommand {
  static override description =
    'Issue an API key for a merchant, optionally with a label, an expiry and the client networks it may be used from. The key is printed once and cannot be shown again';
  static override examples = [
    '<%= config.bin %> key issue 6f1c2b9e-3a47-4d2e-9b1a-0c8d5e7f4a21',
    '<%= config.bin %> key issue 6f1c2b9e-3a47-4d2e-9b1a-0c8d5e7f4a21 --label "billing server" --expires-in 90d --allow-ip 203.0.113.0/24 --allow-ip 2001:db8::/32 --json',
  ];
  static override args = { merchant: idArg('merchant id') };
  static override flags = {
    label: Flags.string({ description: 'a name for the key (1 to 100 printable characters), shown by key list' }),
    ...termFlags('key'),
  };

  async run(): Promise<IssuedKey> {
    const { args, flags } = await this.parse(KeyIssue);
    const ctx = await this.context();
    const key = await issueKey(ctx.database.db, ctx.clock, ctx.actor, args.merchant, undefined, {
      label: flags.label ?? null,
      ...termsOf(flags),
    });
    this.say(
      `API key (shown once, store it now):\n${key.api_key}\n` +
        issuedSummary({ key_id: key.key_id, label: key.label }, key),
    );
    return key;
  }
}

import { Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { durationFlag, idArg } from '../../src/cli/flags.js';
import { record } from '../../src/cli/format.js';
import { issueKey, type IssuedKey } from '../../src/keys/service.js';
import { EXPIRES_IN_MAX_MS } from '../../src/keys/terms.js';

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
    'expires-in': durationFlag({
      description: 'refuse the key after this long (at most 3650d); without it the key does not expire',
      maxMs: EXPIRES_IN_MAX_MS,
    }),
    'allow-ip': Flags.string({
      multiple: true,
      delimiter: ',',
      description:
        'a client network (CIDR, or one address) the key may be used from; repeat for more; without it any address',
    }),
  };

  async run(): Promise<IssuedKey> {
    const { args, flags } = await this.parse(KeyIssue);
    const ctx = await this.context();
    const key = await issueKey(ctx.database.db, ctx.clock, ctx.actor, args.merchant, undefined, {
      label: flags.label ?? null,
      expiresInMs: flags['expires-in'] ?? null,
      allowedNetworks: flags['allow-ip'] ?? null,
    });
    this.say(
      `API key (shown once, store it now):\n${key.api_key}\n` +
        record({
          key_id: key.key_id,
          label: key.label,
          expires_at: key.expires_at,
          allowed_networks: key.allowed_networks?.join(' ') ?? 'any',
        }),
    );
    return key;
  }
}

import { Flags } from '@oclif/core';
import { PaygateCommand } from '../../../src/cli/base.js';
import { issuedSummary, termFlags, termsOf } from '../../../src/cli/term-flags.js';
import { issueOperatorToken, type IssuedOperatorToken } from '../../../src/operators/service.js';

export default class OperatorTokenIssue extends PaygateCommand {
  static override description =
    'Issue a token for the operator console (/admin/v1 on the admin listener), optionally read-only, with an expiry and the client networks it may be used from. The token is printed once and cannot be shown again';
  static override examples = [
    '<%= config.bin %> operator token issue --name "deploy bot"',
    '<%= config.bin %> operator token issue --name dashboard --read-only --expires-in 90d --allow-ip 10.0.0.0/8 --json',
  ];
  static override flags = {
    name: Flags.string({ required: true, description: 'who or what holds the token (1 to 100 characters)' }),
    'read-only': Flags.boolean({
      default: false,
      description: 'every GET of the console and nothing else: any change is 403 operator_token_read_only',
    }),
    ...termFlags('token'),
  };

  async run(): Promise<IssuedOperatorToken> {
    const { flags } = await this.parse(OperatorTokenIssue);
    const ctx = await this.context();
    const t = await issueOperatorToken(ctx.database.db, ctx.clock, ctx.actor, flags.name, undefined, {
      readOnly: flags['read-only'],
      ...termsOf(flags),
    });
    this.say(
      `Operator token (shown once, store it now):\n${t.token}\n` +
        issuedSummary({ token_id: t.token_id, access: t.read_only ? 'read-only' : 'full' }, t),
    );
    return t;
  }
}

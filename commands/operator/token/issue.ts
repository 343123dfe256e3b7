import { Flags } from '@oclif/core';
import { PaygateCommand } from '../../../src/cli/base.js';
import { issueOperatorToken, type IssuedOperatorToken } from '../../../src/operators/service.js';

export default class OperatorTokenIssue extends PaygateCommand {
  static override description =
    'Issue a token for the operator console (/admin/v1 on the admin listener). The token is printed once and cannot be shown again';
  static override examples = [
    '<%= config.bin %> operator token issue --name "deploy bot"',
    '<%= config.bin %> operator token issue --name alice --json',
  ];
  static override flags = {
    name: Flags.string({ required: true, description: 'who or what holds the token (1 to 100 characters)' }),
  };

  async run(): Promise<IssuedOperatorToken> {
    const { flags } = await this.parse(OperatorTokenIssue);
    const ctx = await this.context();
    const t = await issueOperatorToken(ctx.database.db, ctx.clock, ctx.actor, flags.name);
    this.say(`Operator token (shown once, store it now):\n${t.token}\ntoken_id: ${t.token_id}`);
    return t;
  }
}

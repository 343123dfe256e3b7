import { Args } from '@oclif/core';
import { PaygateCommand } from '../../../src/cli/base.js';
import { revokeOperatorToken, type OperatorTokenView } from '../../../src/operators/service.js';

export default class OperatorTokenRevoke extends PaygateCommand {
  static override description = 'Revoke an operator console token; the console refuses it from the next request on';
  static override examples = ['<%= config.bin %> operator token revoke 5c2e9a7b1d3f4e60'];
  static override args = {
    token_id: Args.string({ required: true, description: 'the 16 hex characters after op_' }),
  };

  async run(): Promise<OperatorTokenView> {
    const { args } = await this.parse(OperatorTokenRevoke);
    const ctx = await this.context();
    const t = await revokeOperatorToken(ctx.database.db, ctx.clock, ctx.actor, args.token_id);
    this.say(`Operator token ${t.token_id} (${t.name}) revoked at ${t.revoked_at}`);
    return t;
  }
}

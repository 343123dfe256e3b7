import { PaygateCommand } from '../../../src/cli/base.js';
import { table } from '../../../src/cli/format.js';
import { listOperatorTokens, type OperatorTokenView } from '../../../src/operators/service.js';

export default class OperatorTokenList extends PaygateCommand {
  static override description = 'List the operator console tokens (ids, names and states; secrets are never shown)';
  static override examples = ['<%= config.bin %> operator token list', '<%= config.bin %> operator token list --json'];

  async run(): Promise<{ tokens: OperatorTokenView[] }> {
    await this.parse(OperatorTokenList);
    const ctx = await this.context();
    const tokens = await listOperatorTokens(ctx.database.db);
    this.say(
      table(
        tokens.map((t) => ({ ...t })),
        ['token_id', 'name', 'status', 'created_at', 'created_by', 'revoked_at'],
      ),
    );
    return { tokens };
  }
}

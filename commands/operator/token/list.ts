import { PaygateCommand } from '../../../src/cli/base.js';
import { table } from '../../../src/cli/format.js';
import { listOperatorTokens, type OperatorTokenView } from '../../../src/operators/service.js';

export default class OperatorTokenList extends PaygateCommand {
  static override description =
    'List the operator console tokens: ids, names, states, access (read-only or full), expiry and allowed client networks (secrets are never shown)';
  static override examples = ['<%= config.bin %> operator token list', '<%= config.bin %> operator token list --json'];

  async run(): Promise<{ tokens: OperatorTokenView[] }> {
    await this.parse(OperatorTokenList);
    const ctx = await this.context();
    const tokens = await listOperatorTokens(ctx.database.db, ctx.clock);
    this.say(
      table(
        tokens.map((t) => ({
          ...t,
          access: t.read_only ? 'read-only' : 'full',
          allowed_networks: t.allowed_networks?.join(' ') ?? 'any',
        })),
        [
          'token_id',
          'name',
          'status',
          'access',
          'expires_at',
          'allowed_networks',
          'created_at',
          'created_by',
          'revoked_at',
        ],
      ),
    );
    return { tokens };
  }
}

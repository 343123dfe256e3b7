import { PaygateCommand } from '../../../src/cli/base.js';
import { pageFlags, pageQuery, pageTable, type Paged } from '../../../src/cli/list.js';
import { pageOfRows } from '../../../src/operators/paging.js';
import { listOperatorTokens, type OperatorTokenView } from '../../../src/operators/service.js';

export default class OperatorTokenList extends PaygateCommand {
  static override description =
    'List the operator console tokens, newest first: ids, names, states, access (read-only or full), expiry and allowed client networks (secrets are never shown)';
  static override examples = ['<%= config.bin %> operator token list', '<%= config.bin %> operator token list --json'];
  static override flags = { ...pageFlags };

  async run(): Promise<Paged<OperatorTokenView>> {
    const { flags } = await this.parse(OperatorTokenList);
    const q = pageQuery(flags);
    const ctx = await this.context();
    const tokens = await listOperatorTokens(ctx.database.db, ctx.clock);
    const page = pageOfRows(tokens, q, (t) => ({ at: t.created_at, id: t.token_id }));
    this.say(
      pageTable(
        {
          ...page,
          data: page.data.map((t) => ({
            ...t,
            access: t.read_only ? 'read-only' : 'full',
            allowed_networks: t.allowed_networks?.join(' ') ?? 'any',
          })),
        },
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
        this,
      ),
    );
    return page;
  }
}

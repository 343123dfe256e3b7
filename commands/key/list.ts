import { PaygateCommand } from '../../src/cli/base.js';
import { idArg } from '../../src/cli/flags.js';
import { pageFlags, pageQuery, pageTable, type Paged } from '../../src/cli/list.js';
import { listKeys, type KeyView } from '../../src/keys/service.js';
import { pageOfRows } from '../../src/operators/paging.js';

export default class KeyList extends PaygateCommand {
  static override description =
    "List a merchant's API keys, newest first: ids, labels, states, expiry, allowed client networks and last use (secrets are never shown)";
  static override examples = ['<%= config.bin %> key list 6f1c2b9e-3a47-4d2e-9b1a-0c8d5e7f4a21'];
  static override args = { merchant: idArg('merchant id') };
  static override flags = { ...pageFlags };

  async run(): Promise<Paged<KeyView>> {
    const { args, flags } = await this.parse(KeyList);
    const q = pageQuery(flags);
    const ctx = await this.context();
    const keys = await listKeys(ctx.database.db, args.merchant, ctx.clock);
    const page = pageOfRows(keys, q, (k) => ({ at: k.created_at, id: k.key_id }));
    this.say(
      pageTable(
        { ...page, data: page.data.map((k) => ({ ...k, allowed_networks: k.allowed_networks?.join(' ') ?? 'any' })) },
        ['key_id', 'label', 'status', 'created_at', 'expires_at', 'allowed_networks', 'last_used_at', 'revoked_at'],
        this,
      ),
    );
    return page;
  }
}

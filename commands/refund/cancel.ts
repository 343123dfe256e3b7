import { PaygateCommand } from '../../src/cli/base.js';
import { idArg } from '../../src/cli/flags.js';
import { record } from '../../src/cli/format.js';
import type { RefundView } from '../../src/refunds/schema.js';
import { cancelRefund } from '../../src/refunds/service.js';

export default class RefundCancel extends PaygateCommand {
  static override description =
    'Cancel a refund still waiting for the customer’s address; its reservation is released (invalid_state once the address is given)';
  static override examples = ['<%= config.bin %> refund cancel 0b7e4f2a-5c1d-4e8b-9a3f-6d2c1b0e9f87'];
  static override args = { id: idArg('refund id') };

  async run(): Promise<RefundView> {
    const { args } = await this.parse(RefundCancel);
    const ctx = await this.context();
    const v = await cancelRefund({ db: ctx.database.db, clock: ctx.clock }, args.id, null, ctx.actor);
    this.say(record({ ...v }));
    return v;
  }
}

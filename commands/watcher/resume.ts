import { PaygateCommand } from '../../src/cli/base.js';
import { record } from '../../src/cli/format.js';
import { resumeWatcher, type WatcherStatus } from '../../src/watcher/stop.js';

export default class WatcherResume extends PaygateCommand {
  static override description =
    'Let the chain watcher go on after it stopped because the node contradicted finality, once you have checked the node (docs/operations/incidents.md, "The node contradicts finality"): it follows the node\'s chain from then on; deposits already final stay as they are, and payouts and sweeps resume (invalid_state when it is not stopped)';
  static override examples = ['<%= config.bin %> watcher resume'];

  async run(): Promise<WatcherStatus> {
    await this.parse(WatcherResume);
    const ctx = await this.context();
    const status = await resumeWatcher(ctx.database.db, ctx.clock, ctx.actor);
    const { stop, ...rest } = status;
    this.say(
      record({
        ...rest,
        ...(stop ? { reason: stop.reason, resumed_at: stop.resumed_at, resumed_by: stop.resumed_by } : {}),
      }),
    );
    return status;
  }
}

import { PaygateCommand } from '../../src/cli/base.js';
import { record } from '../../src/cli/format.js';
import { watcherStatus, type WatcherStatus } from '../../src/watcher/stop.js';

export default class WatcherStatusCommand extends PaygateCommand {
  static override description =
    'Show the chain watcher: the next block to scan, the head seen, the block up to which deposits are final, and whether it stopped because the node contradicted finality (then payouts and sweeps stand still too; see paygate watcher resume)';
  static override examples = ['<%= config.bin %> watcher status', '<%= config.bin %> watcher status --json'];

  async run(): Promise<WatcherStatus> {
    await this.parse(WatcherStatusCommand);
    const ctx = await this.context();
    const status = await watcherStatus(ctx.database.db);
    const { stop, ...rest } = status;
    this.say(
      record({
        ...rest,
        ...(stop
          ? {
              reason: stop.reason,
              stopped_at: stop.stopped_at,
              resumed_at: stop.resumed_at,
              resumed_by: stop.resumed_by,
            }
          : {}),
      }),
    );
    return status;
  }
}

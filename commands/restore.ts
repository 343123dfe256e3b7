import { Args } from '@oclif/core';
import { PaygateCommand, cliActor, loadDotEnv } from '../src/cli/base.js';
import { record } from '../src/cli/format.js';
import { parseConfig } from '../src/config.js';
import { restoreDatabase, type RestoreResult } from '../src/operations/backup.js';

export default class Restore extends PaygateCommand {
  static override description =
    'Replace the database with a backup made by paygate backup. Refuses while the database is in use (a live worker lease or any process holding it open: stop every serve first) and checks the backup\'s integrity before touching anything; the replaced database is kept beside it as <db>.before-restore-<time>. The restored database is migrated and left halted: payouts and sweeps wait for paygate payout resume --worker, and each payout it shows unfinished is held until paygate payout approve or cancel.';
  static override examples = ['systemctl stop paygate && <%= config.bin %> restore /var/backups/paygate/paygate-20260301T0300Z.db && systemctl start paygate'];
  static override args = {
    file: Args.string({ required: true, description: 'the backup file to restore' }),
  };

  async run(): Promise<RestoreResult> {
    const { args } = await this.parse(Restore);
    loadDotEnv();
    const config = parseConfig(process.env);
    const result = await restoreDatabase(config.databasePath, args.file, new Date(), cliActor());
    this.say(record({ ...result }));
    this.say(
      `\nPayouts and sweeps are halted, and ${result.payouts_held} unfinished payout(s) are held: they may have been sent after the backup. Check the hot wallet's transfers on chain since the backup (docs/operations.md, "After a restore"), decide each held payout with paygate payout approve or paygate payout cancel, then run paygate payout resume --worker.`,
    );
    return result;
  }
}

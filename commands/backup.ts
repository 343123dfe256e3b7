import { Args } from '@oclif/core';
import { PaygateCommand, loadDotEnv } from '../src/cli/base.js';
import { record } from '../src/cli/format.js';
import { parseConfig } from '../src/config.js';
import { assertDatabaseFileExists } from '../src/db/presence.js';
import { backupDatabase, sqliteFile, type BackupResult } from '../src/operations/backup.js';

export default class Backup extends PaygateCommand {
  static override description =
    'Copy the database to <file> while serve keeps running: a consistent snapshot, integrity-checked, mode 0600, never overwriting an existing file. Progress goes to stderr. The wallet keystore is a separate file: back it up once, apart from the database.';
  static override examples = [
    '<%= config.bin %> backup /var/backups/paygate/paygate-$(date -u +%Y%m%dT%H%MZ).db',
    '<%= config.bin %> backup ./before-upgrade.db --json',
  ];
  static override args = {
    file: Args.string({ required: true, description: 'where to write the backup (must not exist)' }),
  };

  async run(): Promise<BackupResult> {
    const { args } = await this.parse(Backup);
    loadDotEnv();
    const config = parseConfig(process.env);
    assertDatabaseFileExists(config);
    let shown = -1;
    const result = await backupDatabase(
      sqliteFile(config.database, 'backup'),
      args.file,
      ({ totalPages, remainingPages }) => {
        const percent = totalPages === 0 ? 100 : Math.floor(((totalPages - remainingPages) / totalPages) * 100);
        if (this.jsonEnabled() || (percent < 100 && percent - shown < 10) || percent === shown) return;
        shown = percent;
        process.stderr.write(`backup: ${percent}% (${totalPages - remainingPages}/${totalPages} pages)\n`);
      },
    );
    this.say(record({ ...result }));
    return result;
  }
}

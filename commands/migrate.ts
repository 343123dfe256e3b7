import { PaygateCommand } from '../src/cli/base.js';
import { databaseLabel } from '../src/config.js';
import { migrateToLatest, type MigrationReport } from '../src/db/migrate.js';

export default class Migrate extends PaygateCommand {
  static override description = 'Apply pending database migrations (serve also applies them at start)';
  static override examples = [
    '<%= config.bin %> migrate',
    'DATABASE_URL=/var/lib/paygate/paygate.db <%= config.bin %> migrate --json',
  ];
  static override appliesMigrations = true;

  async run(): Promise<MigrationReport & { database: string }> {
    await this.parse(Migrate);
    const ctx = await this.context();
    // context() applied the pending migrations; report those (a second run would list none).
    const report = this.migrationReport ?? (await migrateToLatest(ctx.database.db));
    const database = databaseLabel(ctx.config.database);
    this.say(`Database ${database} is at ${report.current ?? 'no migration'}`);
    return { database, ...report };
  }
}

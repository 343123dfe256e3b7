import { Args, Flags } from '@oclif/core';
import { PaygateCommand, cliActor, loadDotEnv } from '../src/cli/base.js';
import { record, table } from '../src/cli/format.js';
import { progressBar } from '../src/cli/progress.js';
import { parseConfig } from '../src/config.js';
import { RESTORE_GAP } from '../src/restore/derivation-gap.js';
import { AppError } from '../src/errors.js';
import { restoreDatabase, sqliteFile, type RestoreResult } from '../src/restore/backup.js';
import { secureRestoredDatabase, type InPlaceResult } from '../src/restore/in-place.js';

export default class Restore extends PaygateCommand {
  static override description =
    "Replace the database with a backup made by paygate backup. Refuses while the database is in use (a live worker lease or any process holding it open: stop every serve first) and checks the backup's integrity before touching anything; the replaced database is kept beside it as <db>.before-restore-<time>. The restored database is migrated and left halted: payouts and sweeps wait for paygate payout resume --worker (payout requests are accepted and wait), and each payout it shows not final is held; serve's chain watcher then reads the chain since the backup and confirms each held payout it finds sent, and the rest wait for paygate payout approve or cancel (approve answers invalid_state until the reading is done). The next deposit index is raised past every index that may have been handed out since the backup (a recorded gap of --gap indexes): no address is handed to two users. The gap's first addresses (as many as the instance can have handed out since the backup, estimated from its rate with a margin, or --watch) are derived and stay watched; a payment to one shows in paygate deposit list --unattributed and is credited to no one. With --in-place instead of a file: the database DATABASE_URL names was restored by other means (PostgreSQL: pg_restore, point-in-time recovery), and is migrated, halted, held and given its gap where it is.";
  static override examples = [
    'systemctl stop paygate && <%= config.bin %> restore /var/backups/paygate/paygate-20260301T0300Z.db && systemctl start paygate',
    'pg_restore --dbname=paygate paygate.dump && <%= config.bin %> restore --in-place   # PostgreSQL, every serve stopped',
  ];
  static override args = {
    file: Args.string({ required: false, description: 'the backup file to restore (not with --in-place)' }),
  };
  static override flags = {
    gap: Flags.integer({
      default: RESTORE_GAP,
      min: RESTORE_GAP,
      description: 'deposit indexes to skip: more than were handed out since the backup',
    }),
    watch: Flags.integer({
      min: 1,
      description:
        "the gap's first indexes to watch (default: estimated from the backup, the rate its newest addresses were handed out at times the time since, doubled, plus 1000)",
    }),
    'in-place': Flags.boolean({
      default: false,
      description:
        'the database was already restored by other means (PostgreSQL: pg_restore, point-in-time recovery): make it safe where it is',
    }),
  };

  async run(): Promise<RestoreResult | InPlaceResult> {
    const { args, flags } = await this.parse(Restore);
    loadDotEnv();
    if (flags['in-place'] === (args.file !== undefined))
      throw new AppError(
        'invalid_argument',
        'Give the backup file to restore, or --in-place for a database already restored by other means (not both)',
      );
    const config = parseConfig(process.env);
    // Tests restore with a small gap, to see its end.
    const testGap = Number(process.env.PAYGATE_TEST_RESTORE_GAP ?? 0);
    const progress = progressBar('restore: deriving the watched addresses of the gap', 'addresses', {
      json: this.jsonEnabled(),
    });
    const opts = {
      gap: testGap > 0 ? testGap : flags.gap,
      watch: flags.watch,
      onGapProgress: (done: number, total: number) => progress.update(done, total),
    };
    let result: RestoreResult | InPlaceResult;
    try {
      result =
        args.file === undefined
          ? await secureRestoredDatabase(config.database, new Date(), cliActor(), opts)
          : await restoreDatabase(sqliteFile(config.database, 'restore'), args.file, new Date(), cliActor(), opts);
    } finally {
      progress.stop();
    }
    const gap = result.derivation_gap;
    const { held_payouts: heldPayouts, ...summary } = result;
    this.say(
      record({
        ...summary,
        derivation_gap: gap
          ? `indexes ${gap.from_index} to ${gap.to_index} skipped, the addresses of ${gap.from_index} to ${gap.watched_to_index} watched (${gap.addresses})`
          : 'none (no wallet)',
      }),
    );
    this.say(
      `\nPayouts and sweeps are halted (payout requests are accepted and wait), and ${result.payouts_held} payout(s) that were not final are held: they may have been sent after the backup.${
        heldPayouts.length > 0
          ? `\n${table(
              heldPayouts.map((p) => ({ ...p })),
              ['payout_id', 'status', 'asset', 'amount', 'to_address'],
            )}\n`
          : ' '
      }Start paygate serve: its chain watcher reads the chain since the backup and marks each held payout it finds sent (one transfer out of the hot wallet with its asset, address and amount) confirmed with that txid; paygate payout approve of a held payout answers invalid_state until that reading is done. Then check paygate payout list --unknown-on-chain (docs/operations/backups.md, "After a restore"), decide each payout left with paygate payout approve or paygate payout cancel, and run paygate payout resume --worker. Payments to the skipped addresses show in paygate deposit list --unattributed.`,
    );
    return result;
  }
}

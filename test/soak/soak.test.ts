/**
 * The soak (scripts/soak.ts) in CI: a short run as a child process must hold every invariant and
 * must have met each kind of trouble at least once (so it cannot pass by doing nothing). Then the
 * checker itself is shown to fail: violations planted in copies of that run's database and facts.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { tempDir } from '../helpers/app.js';
import { describeSqliteOnly } from '../helpers/database.js';
import { allProblems, type InvariantReport } from './harness/checks.js';
import type { SoakFacts } from './harness/facts.js';
import type { SoakSummary } from './harness/run.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const kept = tempDir('paygate-soak-test-');

function runScript(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/soak.ts', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A copy of the kept run's database (and facts), changed by `plant`, checked again. */
async function checkCopy(
  plant: (sql: import('better-sqlite3').Database, facts: SoakFacts) => void,
): Promise<InvariantReport> {
  const dir = tempDir('paygate-soak-plant-');
  for (const suffix of ['', '-wal', '-shm']) {
    if (existsSync(path.join(kept, `paygate.db${suffix}`)))
      copyFileSync(path.join(kept, `paygate.db${suffix}`), path.join(dir, `paygate.db${suffix}`));
  }
  const facts = JSON.parse(readFileSync(path.join(kept, 'facts.json'), 'utf8')) as SoakFacts;
  const { default: Sqlite } = await import('better-sqlite3');
  const raw = new Sqlite(path.join(dir, 'paygate.db'));
  plant(raw, facts);
  raw.close();
  const database = openDatabase(path.join(dir, 'paygate.db'));
  try {
    return await allProblems(database.db, facts);
  } finally {
    await database.close();
  }
}

describeSqliteOnly(
  'the soak runs on SQLite files and plants violations in copies of them; its PostgreSQL run is still to come',
)('the soak with faults', () => {
  it(
    'holds every invariant through faults, forks and SIGTERM/SIGKILL restarts of serve',
    { timeout: 240_000 },
    async () => {
      const run = await runScript(['--duration', '45s', '--seed', '11', '--json', '--keep', kept]);
      const summary = JSON.parse(run.stdout.trim().split('\n').pop() as string) as SoakSummary;
      expect(summary.violations, run.stderr.slice(-3000)).toEqual({
        deposits: [],
        payouts: [],
        balances: [],
        webhooks: [],
        serve: [],
        settle: [],
      });
      expect(run.code).toBe(0);
      expect(summary.ok).toBe(true);
      // It met every kind of trouble and did every kind of work at least once.
      expect(summary.forks.total).toBeGreaterThan(0);
      expect(summary.forks.past_confirmation).toBeGreaterThan(0);
      // At least one fork replaced blocks the watcher had already scanned (not only blocks ahead of it).
      expect(summary.forks.below_watcher).toBeGreaterThan(0);
      expect(summary.faults.hit).toBeGreaterThan(0);
      expect(summary.restarts.SIGTERM).toBeGreaterThan(0);
      expect(summary.restarts.SIGKILL).toBeGreaterThan(0);
      expect(summary.invoices.by_status.settled ?? 0).toBeGreaterThan(0);
      expect(summary.payouts.by_status.confirmed ?? 0).toBeGreaterThan(0);
      expect(summary.webhooks.received).toBeGreaterThan(0);
      expect(summary.deposits.credited).toBeGreaterThan(0);
      expect(summary.api.by_status['500'] ?? 0).toBe(0);
    },
  );

  it('the checker finds a planted double credit, a second payout transfer, a lost and a reordered webhook', async () => {
    // The unchanged copy passes: what follows is each plant's doing.
    expect(Object.values(await checkCopy(() => undefined)).flat()).toEqual([]);

    const doubled = await checkCopy((sql) => {
      // The same on-chain payment booked as a second deposit, with its own (well-formed) ledger credit.
      const d = sql
        .prepare(
          'select * from deposits where credited_at is not null and cast(credited_amount as integer) > 0 limit 1',
        )
        .get() as Record<string, unknown>;
      const last = sql
        .prepare('select * from ledger_entries where merchant_id = ? and asset = ? order by seq desc limit 1')
        .get(d.merchant_id, d.asset) as Record<string, unknown>;
      const cols = Object.keys(d);
      const copy = { ...d, id: `${String(d.id)}-twin`, log_index: Number(d.log_index) + 1000 };
      sql
        .prepare(`insert into deposits (${cols.join(',')}) values (${cols.map(() => '?').join(',')})`)
        .run(...cols.map((c) => copy[c as keyof typeof copy]));
      sql
        .prepare(
          'insert into ledger_entries (merchant_id, asset, seq, kind, amount, balance_after, reserved_after, source_ref, actor, created_at) values (?,?,?,?,?,?,?,?,?,?)',
        )
        .run(
          d.merchant_id,
          d.asset,
          Number(last.seq) + 1,
          'credit',
          d.credited_amount,
          (BigInt(String(last.balance_after)) + BigInt(String(d.credited_amount))).toString(),
          last.reserved_after,
          `deposit:${String(d.tx_hash)}:${copy.log_index}`,
          'watcher',
          new Date().toISOString(),
        );
    });
    expect(doubled.deposits.join('\n')).toMatch(/is 2 live deposits/);

    const twice = await checkCopy((sql, facts) => {
      const p = sql.prepare("select tx_hash from payouts where status = 'confirmed' limit 1").get() as {
        tx_hash: string;
      };
      const t = facts.transfers.find((x) => x.txid === p.tx_hash)!;
      facts.transfers.push({ ...t, txid: 'ab'.repeat(32), block: t.block + 1 });
    });
    expect(twice.payouts.join('\n')).toMatch(/belongs to no payout/);
    expect(twice.payouts.join('\n')).toMatch(/successful payout transfers on chain for/);

    const lost = await checkCopy((_sql, facts) => {
      const gone = facts.received[0]!.eventId;
      facts.received = facts.received.filter((r) => r.eventId !== gone);
    });
    expect(lost.webhooks.join('\n')).toMatch(/never received/);

    const reordered = await checkCopy((_sql, facts) => {
      const m = facts.received[0]!.merchantId;
      const i = facts.received.findIndex((r, k) => k > 0 && r.merchantId === m);
      [facts.received[0], facts.received[i]] = [facts.received[i]!, facts.received[0]!];
    });
    expect(reordered.webhooks.join('\n')).toMatch(/first arrived after/);
  });
});

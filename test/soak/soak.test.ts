/**
 * The soak (scripts/soak.ts) in CI: a short run as a child process must hold every invariant and
 * must have met each kind of trouble at least once (so it cannot pass by doing nothing). Then the
 * checker itself is shown to fail: violations planted in copies of that run's database and facts.
 * On PostgreSQL the run's database is a database of the test server, and its copies are databases
 * made from it as a template.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/db/database.js';
import { tempDir } from '../helpers/app.js';
import { createPostgresDatabase, ON_POSTGRES } from '../helpers/database.js';
import { createTestDatabase } from '../helpers/postgres-server.js';
import { allProblems, type InvariantReport } from './harness/checks.js';
import type { SoakFacts } from './harness/facts.js';
import type { SoakSummary } from './harness/run.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const kept = tempDir('paygate-soak-test-');
/** PostgreSQL: the run's database, kept for the copies. */
const keptPostgres = ON_POSTGRES ? await createPostgresDatabase({ migrated: true }) : null;
afterAll(() => keptPostgres?.drop());

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

/** A copy of the kept run's database: its URL, and how to remove it. */
async function copyOfRun(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (keptPostgres) return createTestDatabase(keptPostgres.name);
  const dir = tempDir('paygate-soak-plant-');
  for (const suffix of ['', '-wal', '-shm']) {
    if (existsSync(path.join(kept, `paygate.db${suffix}`)))
      copyFileSync(path.join(kept, `paygate.db${suffix}`), path.join(dir, `paygate.db${suffix}`));
  }
  return { url: path.join(dir, 'paygate.db'), drop: async () => {} };
}

/** A copy of the kept run's database (and facts), changed by `plant`, checked again. */
async function checkCopy(plant: (db: Db, facts: SoakFacts) => Promise<void>): Promise<InvariantReport> {
  const copy = await copyOfRun();
  const facts = JSON.parse(readFileSync(path.join(kept, 'facts.json'), 'utf8')) as SoakFacts;
  const database = openDatabase(copy.url);
  try {
    await plant(database.db, facts);
    return await allProblems(database.db, facts);
  } finally {
    await database.close();
    await copy.drop();
  }
}

describe('the soak with faults', () => {
  it(
    'holds every invariant through faults, forks and SIGTERM/SIGKILL restarts of serve',
    { timeout: 240_000 },
    async () => {
      const run = await runScript([
        ...['--duration', '45s', '--seed', '11', '--json', '--keep', kept],
        ...(keptPostgres ? ['--database-url', keptPostgres.url] : []),
      ]);
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
    expect(Object.values(await checkCopy(async () => undefined)).flat()).toEqual([]);

    const doubled = await checkCopy(async (db) => {
      // The same on-chain payment booked as a second deposit, with its own (well-formed) ledger credit.
      const d = await db
        .selectFrom('deposits')
        .selectAll()
        .where('credited_at', 'is not', null)
        .where('credited_amount', 'is not', null)
        .where('credited_amount', '!=', '0')
        .limit(1)
        .executeTakeFirstOrThrow();
      const last = await db
        .selectFrom('ledger_entries')
        .selectAll()
        .where('merchant_id', '=', d.merchant_id)
        .where('asset', '=', d.asset)
        .orderBy('seq', 'desc')
        .limit(1)
        .executeTakeFirstOrThrow();
      const copy = { ...d, id: `${d.id}-twin`, log_index: d.log_index + 1000 };
      await db.insertInto('deposits').values(copy).execute();
      await db
        .insertInto('ledger_entries')
        .values({
          merchant_id: d.merchant_id,
          asset: d.asset,
          seq: last.seq + 1,
          kind: 'credit',
          amount: d.credited_amount as string,
          balance_after: (BigInt(last.balance_after) + BigInt(d.credited_amount as string)).toString(),
          reserved_after: last.reserved_after,
          source_ref: `deposit:${d.tx_hash}:${copy.log_index}`,
          actor: 'watcher',
          created_at: new Date().toISOString(),
        })
        .execute();
    });
    expect(doubled.deposits.join('\n')).toMatch(/is 2 live deposits/);

    const twice = await checkCopy(async (db, facts) => {
      const p = await db
        .selectFrom('payouts')
        .select('tx_hash')
        .where('status', '=', 'confirmed')
        .limit(1)
        .executeTakeFirstOrThrow();
      const t = facts.transfers.find((x) => x.txid === p.tx_hash)!;
      facts.transfers.push({ ...t, txid: 'ab'.repeat(32), block: t.block + 1 });
    });
    expect(twice.payouts.join('\n')).toMatch(/belongs to no payout/);
    expect(twice.payouts.join('\n')).toMatch(/successful payout transfers on chain for/);

    const lost = await checkCopy(async (_db, facts) => {
      const gone = facts.received[0]!.eventId;
      facts.received = facts.received.filter((r) => r.eventId !== gone);
    });
    expect(lost.webhooks.join('\n')).toMatch(/never received/);

    const reordered = await checkCopy(async (_db, facts) => {
      const m = facts.received[0]!.merchantId;
      const i = facts.received.findIndex((r, k) => k > 0 && r.merchantId === m);
      [facts.received[0], facts.received[i]] = [facts.received[i]!, facts.received[0]!];
    });
    expect(reordered.webhooks.join('\n')).toMatch(/first arrived after/);
  });
});

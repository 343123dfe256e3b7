/**
 * The reserves check as operations see it: the daily scheduled job (its alert is an error log
 * line), the `paygate_reserves_*` metrics and the `/readyz` detail, both read from the latest
 * recorded check (a scrape never calls the node).
 *
 * The readiness detail never makes the process unready: a shortfall is not this process's fault
 * and taking every replica out of the load balancer would stop payments too
 * (docs/adr/0044-the-reserves-check.md). Alerting is the metric's and the log's.
 */
import type { MetricSource, ReadinessCheck, Sample } from '../operations/registry.js';
import type { Services } from '../services.js';
import { checkReserves, type AssetReserves } from './service.js';
import { latestCheck } from './store.js';

/** Daily, at 04:17:00 (the server's time zone): a quiet hour, after the webhook log's prune. */
export const RESERVES_SCHEDULE = '0 17 4 * * *';

export async function runReservesCheck(s: Services): Promise<void> {
  const log = s.logger.child({ component: 'reserves' });
  const report = await checkReserves({
    db: s.db,
    reads: s.scans ?? s.db,
    chain: s.chain,
    catalog: s.catalog,
    clock: s.clock,
    network: s.config.tronNetwork,
  });
  for (const a of report.assets) {
    if (!a.covered)
      log.error(
        { asset: a.asset, uncovered: a.uncovered, holdings: a.holdings.total, liabilities: a.liabilities.total },
        `reserves: holdings below liabilities in ${a.asset} by ${a.uncovered}`,
      );
    else if (a.difference.startsWith('-'))
      log.warn(
        { asset: a.asset, difference: a.difference, expected: a.expected, holdings: a.holdings.total },
        `reserves: holdings short of the books in ${a.asset} by ${a.difference.slice(1)} (liabilities still covered)`,
      );
  }
  log.info(
    { checked_at: report.checked_at, covered: report.covered, addresses_read: report.addresses_read },
    'reserves checked',
  );
}

/** A scheduled job of `serve` (runtime/scheduler.ts's Job). */
export function reservesJob(s: Services): { name: string; schedule: string; run(): Promise<void> } {
  return { name: 'reserves-check', schedule: RESERVES_SCHEDULE, run: () => runReservesCheck(s) };
}

async function latest(s: Services): Promise<{ checked_at: string; figures: AssetReserves }[]> {
  return (await latestCheck(s.db)).map((r) => ({ checked_at: r.checked_at, figures: JSON.parse(r.figures) }));
}

/** A display figure for dashboards (a float of a decimal text), never money arithmetic. */
const shown = (text: string) => Number(text);

function perAsset(name: string, help: string, value: (a: AssetReserves) => number): MetricSource {
  return {
    name,
    help,
    labelNames: ['asset'],
    collect: async (s): Promise<Sample[]> =>
      (await latest(s)).map((r) => ({ labels: { asset: r.figures.asset }, value: value(r.figures) })),
  };
}

export const RESERVES_METRICS: MetricSource[] = [
  perAsset(
    'paygate_reserves_holdings',
    'What the chain held for the service at the last reserves check, per asset',
    (a) => shown(a.holdings.total),
  ),
  perAsset(
    'paygate_reserves_liabilities',
    "What the books owed at the last reserves check (merchants' available + reserved, uncredited and unattributed deposits)",
    (a) => shown(a.liabilities.total),
  ),
  perAsset('paygate_reserves_earned', 'Fees earned less network costs at the last reserves check', (a) =>
    shown(a.earned.total),
  ),
  perAsset(
    'paygate_reserves_difference',
    'Holdings − (liabilities + earned) at the last reserves check: below 0 money is missing against the books',
    (a) => shown(a.difference),
  ),
  perAsset(
    'paygate_reserves_uncovered',
    'Liabilities the holdings did not cover at the last reserves check (in-flight payouts allowed for); alert above 0',
    (a) => shown(a.uncovered),
  ),
  perAsset(
    'paygate_reserves_covered',
    'Whether the holdings covered the liabilities at the last reserves check (1) or not (0)',
    (a) => (a.covered ? 1 : 0),
  ),
  {
    name: 'paygate_reserves_checked_timestamp_seconds',
    help: 'When the last reserves check began (unix seconds); absent before the first',
    collect: async (s) => {
      const rows = await latest(s);
      return rows.length === 0 ? [] : [{ value: Date.parse(rows[0]!.checked_at) / 1000 }];
    },
  },
];

export const RESERVES_READINESS: ReadinessCheck = {
  name: 'reserves',
  async check(s) {
    const rows = await latest(s);
    if (rows.length === 0) return { ok: true, checked_at: null };
    const short = rows.filter((r) => !r.figures.covered);
    return {
      ok: true,
      checked_at: rows[0]!.checked_at,
      covered: short.length === 0,
      ...(short.length === 0
        ? {}
        : {
            alert: 'holdings below liabilities',
            uncovered: Object.fromEntries(short.map((r) => [r.figures.asset, r.figures.uncovered])),
          }),
    };
  },
};

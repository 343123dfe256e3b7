/**
 * Prometheus metrics (prom-client), one registry per app (tests run several apps in a process).
 * Request counts and latencies come from an onResponse hook on the public server; everything else
 * is read at scrape time: the database for deposits, payouts, the queue and the lease, the node
 * (cached, bounded) for the head block and hot wallet balances, and the sources features register
 * in registry.ts.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import type { Executor } from '../db/database.js';
import type { StatusCountsTable } from '../db/schema.js';
import type { ApiServer } from '../http/server.js';
import { queuedPayoutCount } from '../payouts/worker/store.js';
import type { Services } from '../services.js';
import type { WorkerHost } from '../runtime/host.js';
import { liveLease } from '../runtime/lease.js';
import { ChainProbe, type ChainProbeOptions } from './probes.js';
import { operations, type MetricSource, type Sample } from './registry.js';

export interface AppMetrics {
  registry: Registry;
  probe: ChainProbe;
  /** Watcher lag in blocks (node head − last scanned block); null while unknown. */
  watcherLag(): Promise<number | null>;
}

export interface MetricsDeps {
  services: Services;
  /** This process's worker host (null when it runs no background work). */
  workers: () => WorkerHost | null;
  probe?: ChainProbeOptions;
}

/**
 * Rows by status, as the triggers of migration 0039 keep them: a few rows per scrape, where a
 * GROUP BY over the tables took about 270 ms on the 1M database. A status with no rows left is
 * not reported, as the GROUP BY did not report it.
 */
export async function countByStatus(db: Executor, table: StatusCountsTable['table_name']): Promise<Sample[]> {
  const rows = await db
    .selectFrom('status_counts')
    .select(['status', 'n'])
    .where('table_name', '=', table)
    .where('n', '>', 0)
    .orderBy('status')
    .execute();
  return rows.map((r) => ({ labels: { status: r.status }, value: Number(r.n) }));
}

/** The built-in sources: the tables and rows every installation has. */
function builtinSources(
  deps: MetricsDeps,
  probe: ChainProbe,
  watcherLag: () => Promise<number | null>,
): MetricSource[] {
  const s = deps.services;
  return [
    {
      name: 'paygate_deposits',
      help: 'Deposits by status',
      labelNames: ['status'],
      collect: () => countByStatus(s.db, 'deposits'),
    },
    {
      name: 'paygate_invoices',
      help: 'Invoices by status',
      labelNames: ['status'],
      collect: () => countByStatus(s.db, 'invoices'),
    },
    {
      name: 'paygate_payouts',
      help: 'Payouts by status',
      labelNames: ['status'],
      collect: () => countByStatus(s.db, 'payouts'),
    },
    {
      name: 'paygate_payouts_queued',
      help: 'Payouts waiting for the payout worker (approved or queued)',
      collect: async () => [{ value: await queuedPayoutCount(s.db) }],
    },
    {
      name: 'paygate_watcher_lag_blocks',
      help: 'Blocks between the node head and the last block the watcher scanned (absent while unknown)',
      collect: async () => {
        const lag = await watcherLag();
        return lag === null ? [] : [{ value: lag }];
      },
    },
    {
      name: 'paygate_hot_wallet_balance',
      help: 'Hot wallet balance per asset in asset units (refreshed at most every 30 s)',
      labelNames: ['asset'],
      collect: async () =>
        (await probe.hotWalletBalances()).map((b) => ({ labels: { asset: b.asset }, value: b.value })),
    },
    {
      name: 'paygate_worker_lease_holder',
      help: 'The worker lease row: 1 for the current holder while unexpired, 0 once lapsed',
      labelNames: ['holder'],
      collect: async () => {
        const lease = await liveLease(s.db, s.clock);
        if (!lease) return [];
        return [{ labels: { holder: lease.row.holder }, value: lease.live ? 1 : 0 }];
      },
    },
    {
      name: 'paygate_worker_lease_held',
      help: 'Whether this process holds the worker lease and runs the background work (1) or not (0)',
      collect: async () => [{ value: deps.workers()?.active() ? 1 : 0 }],
    },
  ];
}

/**
 * A gauge whose samples are exactly what its source returned at this scrape: no sample while a
 * value is unknown or its source failed (prom-client's Gauge would print a made-up 0 then).
 */
function scrapeGauge(source: MetricSource, registry: Registry, s: Services): void {
  const metric = {
    name: source.name,
    help: source.help,
    type: 'gauge',
    aggregator: 'sum',
    reset() {},
    async get() {
      let values: Array<{ value: number; labels: Record<string, string> }> = [];
      try {
        values = (await source.collect(s)).map((x) => ({ value: x.value, labels: x.labels ?? {} }));
      } catch (err) {
        // One failing source leaves its metric empty; the scrape still answers.
        s.logger.warn({ err, metric: source.name }, 'metrics: source failed');
      }
      return { name: source.name, help: source.help, type: 'gauge', aggregator: 'sum', values };
    },
  };
  registry.registerMetric(metric as unknown as Metric);
}

export function createMetrics(deps: MetricsDeps): AppMetrics {
  const s = deps.services;
  const registry = new Registry();
  const probe = new ChainProbe(s, deps.probe);
  const watcherLag = async (): Promise<number | null> => {
    const progress = operations.watcherProgress;
    if (!progress) return null;
    const scanned = await progress(s);
    if (scanned === null) return null;
    return Math.max(0, (await probe.headBlock()) - scanned);
  };
  collectDefaultMetrics({ register: registry, prefix: 'paygate_' });
  for (const source of [...builtinSources(deps, probe, watcherLag), ...operations.metricSources])
    scrapeGauge(source, registry, s);
  verifierCounters(s, registry);
  return { registry, probe, watcherLag };
}

/**
 * The API key verifier's argon2 work, read from its counters at scrape time: how many hashes ran
 * (each costs ~64 MiB and tens of ms of CPU; bounded by the per-second cap) and how many keys were
 * left unchecked because a client's budget (429) or the server's capacity (503) was spent.
 */
function verifierCounters(s: Services, registry: Registry): void {
  const counter = (
    name: string,
    help: string,
    values: () => Array<{ value: number; labels: Record<string, string> }>,
  ) =>
    registry.registerMetric({
      name,
      help,
      type: 'counter',
      aggregator: 'sum',
      reset() {},
      get: async () => ({ name, help, type: 'counter', aggregator: 'sum', values: values() }),
    } as unknown as Metric);
  counter('paygate_api_key_verifications_total', 'argon2 verifications of API keys run by this process', () => [
    { value: s.verifier.hashCount, labels: {} },
  ]);
  counter(
    'paygate_api_key_verifications_refused_total',
    'Credentials left unchecked: API keys for client_budget (answered 429) or server_busy (503), cabinet passwords for passwords_busy (503)',
    () => Object.entries(s.verifier.refused).map(([reason, value]) => ({ value, labels: { reason } })),
  );
}

/** The four listeners, as the `listener` label names them. */
export type ListenerLabel = 'v1' | 'admin' | 'cabinet' | 'pay';

/** Request counts and latency of every listener by route template and status, fed by the onResponse hook. */
export interface HttpLatency {
  observe(listener: ListenerLabel, method: string, route: string, status: number, seconds: number): void;
}

export function httpLatency(registry: Registry): HttpLatency {
  const labelNames = ['listener', 'method', 'route', 'status'] as const;
  const latency = new Histogram({
    name: 'paygate_http_request_duration_seconds',
    help: 'Time from request to response, by listener (v1, admin, cabinet, pay)',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  // The request count is the histogram's own _count, copied at scrape time: a second metric
  // updated per request would cost each request another label hash.
  new Counter({
    name: 'paygate_http_requests_total',
    help: 'Requests answered, by listener (v1, admin, cabinet, pay)',
    labelNames,
    registers: [registry],
    async collect() {
      const counts = (await latency.get()).values.filter(
        (v) => v.metricName === 'paygate_http_request_duration_seconds_count',
      );
      // Reset and refill with no await in between: two scrapes at once must not add up.
      this.reset();
      for (const v of counts) this.inc(v.labels, v.value);
    },
  });
  return {
    observe: (listener, method, route, status, seconds) =>
      latency.observe({ listener, method, route, status: String(status) }, seconds),
  };
}

/** Times every request the listener's fastify answers. */
export function instrumentHttp(app: ApiServer, latency: HttpLatency, listener: ListenerLabel): void {
  // A callback hook, not an async one: no promise per request.
  app.addHook('onResponse', (req, reply, done) => {
    // The route template (/v1/invoices/:id), never the raw URL: ids would explode the label set.
    latency.observe(
      listener,
      req.method,
      req.is404 ? 'unmatched' : (req.routeOptions.url ?? 'unmatched'),
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
}

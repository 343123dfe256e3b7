/**
 * Where features plug into the admin listener (admin.ts): metric sources read at scrape time and
 * the watcher's progress for the lag metric and /readyz. A feature adds itself with one line at
 * its own module's load or, better, in src/operations/wiring.ts, so this folder never imports a
 * feature's internals and a feature never imports the admin server.
 */
import type { Services } from '../services.js';

export interface Sample {
  labels?: Record<string, string>;
  value: number;
}

/**
 * A gauge computed at scrape time, usually from a DB query (read-only, never in a write
 * transaction, no node call unless cached: a scrape must stay cheap and bounded).
 */
export interface MetricSource {
  /** Prometheus name, `paygate_` prefixed, e.g. `paygate_webhook_deliveries_failed`. */
  name: string;
  help: string;
  labelNames?: string[];
  collect(s: Services): Promise<Sample[]>;
}

/** How far the chain watcher has scanned; null while unknown (before its first scan). */
export type WatcherProgress = (s: Services) => Promise<number | null>;

export interface OperationsRegistry {
  metricSources: MetricSource[];
  /** Set by the watcher feature; until then the lag is reported unknown and /readyz ignores it. */
  watcherProgress: WatcherProgress | null;
}

/** The process-wide registry the admin listener of every app reads (sources are pure functions of Services). */
export const operations: OperationsRegistry = { metricSources: [], watcherProgress: null };

export function registerMetricSource(source: MetricSource): void {
  if (!operations.metricSources.some((m) => m.name === source.name)) operations.metricSources.push(source);
}

export function registerWatcherProgress(progress: WatcherProgress): void {
  operations.watcherProgress = progress;
}

/**
 * Where features plug into the admin listener (admin.ts): metric sources read at scrape time, the
 * watcher's progress for the lag metric and /readyz, and the conditions that make /readyz 503. A feature adds itself with one line at
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

/**
 * A condition under which the process must not be taken for ready, read from the database (cheap,
 * no node call): `/readyz` answers 503 with `reason` while it reports ok: false.
 */
export interface ReadinessCheck {
  /** The key under `checks` in the /readyz answer. */
  name: string;
  check(s: Services): Promise<{ ok: boolean; reason?: string; [detail: string]: unknown }>;
}

export interface OperationsRegistry {
  metricSources: MetricSource[];
  /** Set by the watcher feature; until then the lag is reported unknown and /readyz ignores it. */
  watcherProgress: WatcherProgress | null;
  readinessChecks: ReadinessCheck[];
}

/** The process-wide registry the admin listener of every app reads (sources are pure functions of Services). */
export const operations: OperationsRegistry = { metricSources: [], watcherProgress: null, readinessChecks: [] };

export function registerMetricSource(source: MetricSource): void {
  if (!operations.metricSources.some((m) => m.name === source.name)) operations.metricSources.push(source);
}

export function registerWatcherProgress(progress: WatcherProgress): void {
  operations.watcherProgress = progress;
}

export function registerReadinessCheck(check: ReadinessCheck): void {
  if (!operations.readinessChecks.some((c) => c.name === check.name)) operations.readinessChecks.push(check);
}

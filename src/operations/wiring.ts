/**
 * Each feature's contribution to /metrics and /readyz, registered once when the app module loads
 * (see registry.ts). One line per feature:
 *   registerWatcherProgress(lastScannedBlock)          (the chain watcher's cursor)
 *   registerMetricSource(failedWebhookDeliveries)      (webhook deliveries in status failed)
 *   registerMetricSource(pendingSweeps)                (sweeps waiting or running)
 */
export {};

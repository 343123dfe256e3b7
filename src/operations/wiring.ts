/**
 * Each feature's contribution to /metrics and /readyz, registered once when the app module loads
 * (see registry.ts): the watcher's cursor (lag and readiness), failed webhook deliveries, the
 * sweeps still open (what the treasury has not consolidated yet) and the deposit addresses derived
 * ahead (creations that outrun derivation wait for it once this reaches zero).
 */
import { sql } from 'kysely';
import { failedDeliveryCount } from '../webhooks/store.js';
import { readCursor } from '../workers/watcher-store.js';
import { registerMetricSource, registerWatcherProgress } from './registry.js';

registerWatcherProgress(async (s) => {
  const cursor = await readCursor(s.db);
  return cursor ? cursor.next_block - 1 : null;
});

registerMetricSource({
  name: 'paygate_webhook_deliveries_failed',
  help: 'Webhook deliveries in status failed (they wait for `paygate webhook resend`)',
  collect: async (s) => [{ value: await failedDeliveryCount(s.db) }],
});

registerMetricSource({
  name: 'paygate_sweeps_open',
  help: 'Sweeps of deposit addresses started and not yet finished',
  async collect(s) {
    const row = await s.db.selectFrom('sweeps').select(sql<number>`count(*)`.as('n')).where('status', '=', 'open').executeTakeFirst();
    return [{ value: Number(row?.n ?? 0) }];
  },
});

registerMetricSource({
  name: 'paygate_deposit_addresses_ready',
  help: 'Deposit addresses derived and checked ahead of use; at 0, invoice creations wait for derivation',
  collect: async (s) => {
    const ready = s.addresses.ready;
    return ready === null ? [] : [{ value: ready }];
  },
});

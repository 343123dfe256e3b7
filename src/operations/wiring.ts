/**
 * Each feature's contribution to /metrics and /readyz, registered once when the app module loads
 * (see registry.ts): the watcher's cursor (lag and readiness), a stop of the watcher because the
 * node contradicted finality (readiness and a metric), failed webhook deliveries, the
 * sweeps still open (what the treasury has not consolidated yet), the deposit addresses derived
 * ahead (creations that outrun derivation wait for it once this reaches zero), the latest
 * reserves check, the API keys about to expire, the payout halts, and the transfers out of the
 * hot wallet that paygate did not sign (with the chain reading after a restore).
 */
import { sql } from 'kysely';
import { failedDeliveryCount } from '../webhooks/store.js';
import { readCursor } from '../watcher/store.js';
import { finalityStop } from '../watcher/stop.js';
import { unknownTransferCount, unknownTransfers } from '../watcher/hot-wallet.js';
import { readingState } from '../restore/chain-reading.js';
import { KEY_EXPIRY_METRIC } from '../keys/operations.js';
import { RESERVES_METRICS, RESERVES_READINESS } from '../reserves/operations.js';
import { PAYOUT_HALTS_METRIC, PAYOUT_HALTS_READINESS } from '../payouts/operations.js';
import { registerMetricSource, registerReadinessCheck, registerWatcherProgress } from './registry.js';

registerWatcherProgress(async (s) => {
  const cursor = await readCursor(s.db);
  return cursor ? cursor.next_block - 1 : null;
});

// The node contradicted finality: not ready, with the reason, until `paygate watcher resume`.
registerReadinessCheck({
  name: 'finality',
  async check(s) {
    const stop = await finalityStop(s.db);
    return stop ? { ok: false, reason: stop.reason, since: stop.stopped_at } : { ok: true };
  },
});

registerMetricSource({
  name: 'paygate_watcher_finality_stopped',
  help: 'Whether the chain watcher, payouts and sweeps stand still because the node contradicted finality (1) or not (0); paygate watcher status says why',
  collect: async (s) => [{ value: (await finalityStop(s.db)) ? 1 : 0 }],
});

// What left the hot wallet without paygate signing it (watcher/hot-wallet.ts): a stolen key looks
// like this. A detail of /readyz (the instance still serves), an error log and this gauge's alert.
registerMetricSource({
  name: 'paygate_hot_wallet_unknown_transfers',
  help: 'Transfers out of the hot wallet recorded on chain that paygate did not sign, no restore matched to a held payout and no operator acknowledged (paygate wallet transfers --unknown)',
  collect: async (s) => [{ value: await unknownTransferCount(s.db) }],
});

registerReadinessCheck({
  name: 'hot_wallet',
  async check(s) {
    const unknown = await unknownTransferCount(s.db);
    const reading = await readingState(s.db);
    return {
      ok: true,
      unknown_transfers: unknown,
      ...(unknown > 0
        ? {
            alert:
              'transfers out of the hot wallet that paygate did not sign (paygate wallet transfers --unknown; wallet transfer acknowledge once checked)',
            latest: await unknownTransfers(s.db, 5),
          }
        : {}),
      ...(reading && reading.done_at === null
        ? { restore_reading: { from_block: reading.from_block, until_block: reading.until_block } }
        : {}),
    };
  },
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
    const row = await s.db
      .selectFrom('sweeps')
      .select(sql<number>`count(*)`.as('n'))
      .where('status', '=', 'open')
      .executeTakeFirst();
    return [{ value: Number(row?.n ?? 0) }];
  },
});

// The latest reserves check (src/reserves): figures per asset, and a /readyz detail with the alert.
for (const source of RESERVES_METRICS) registerMetricSource(source);
registerReadinessCheck(RESERVES_READINESS);

// API keys about to expire (src/keys): replaced before their clients get 401s.
registerMetricSource(KEY_EXPIRY_METRIC);

// Payout halts (src/payouts): a gauge per scope and brake, and a /readyz detail that keeps it ready.
registerMetricSource(PAYOUT_HALTS_METRIC);
registerReadinessCheck(PAYOUT_HALTS_READINESS);

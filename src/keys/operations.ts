/**
 * API keys about to expire, for operations: a daily scheduled job logs a warning per key that
 * expires within the notice period (7 days), and `paygate_api_keys_expiring` counts them at
 * every scrape, so a key is replaced before its client starts getting 401s.
 */
import type { MetricSource } from '../operations/registry.js';
import type { Services } from '../services.js';
import { EXPIRY_NOTICE_MS, keysExpiringSoon } from './service.js';

/** Daily, at 04:23:00 (the server's time zone). */
export const KEY_EXPIRY_SCHEDULE = '0 23 4 * * *';

export async function warnExpiringKeys(s: Services): Promise<number> {
  const keys = await keysExpiringSoon(s.db, s.clock);
  const log = s.logger.child({ component: 'api-keys' });
  for (const k of keys)
    log.warn(
      { key_id: k.key_id, merchant_id: k.merchant_id, label: k.label, expires_at: k.expires_at },
      `API key ${k.key_id} of merchant ${k.merchant_id} expires at ${k.expires_at}: issue its replacement (paygate key issue) and revoke it`,
    );
  return keys.length;
}

/** A scheduled job of `serve` (runtime/scheduler.ts's Job). */
export function keyExpiryJob(s: Services): { name: string; schedule: string; run(): Promise<unknown> } {
  return { name: 'api-key-expiry', schedule: KEY_EXPIRY_SCHEDULE, run: () => warnExpiringKeys(s) };
}

export const KEY_EXPIRY_METRIC: MetricSource = {
  name: 'paygate_api_keys_expiring',
  help: `Active API keys that expire within the next ${EXPIRY_NOTICE_MS / 86_400_000} days`,
  collect: async (s) => [{ value: (await keysExpiringSoon(s.db, s.clock)).length }],
};

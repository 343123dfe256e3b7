/**
 * The dashboard's totals per asset, summed by the database: money received today (since midnight
 * UTC), in the last 7 and 30 days, and pending. Received is the merchant's confirmed deposits
 * (invoice and standalone alike, late ones included) by the time the watcher saw them; pending is
 * deposits seen and not yet confirmed. Orphaned deposits left the chain and count nowhere.
 *
 * Amounts are base-unit text; each engine sums them exactly: PostgreSQL as numeric, SQLite as two
 * integer sums of the high and low digits (a token of 18 decimals overflows one 64-bit sum near 9
 * tokens), joined as bigints here.
 */
import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../db/database.js';
import { engineOf } from '../db/engine.js';
import { formatUnits } from '../money.js';
import { countOpen } from '../exceptions/store.js';
import { OWNER_KINDS } from '../exceptions/service.js';

const DAY_MS = 86_400_000;
const LOW_DIGITS = 12;
const CHART_DAYS = 30;

interface Sums {
  asset: string;
  decimals: number;
  [k: string]: string | number | null;
}

/** Exact sums of `amount` under `when`, as text columns `<name>_hi`/`<name>_lo` (or `<name>_hi` alone on PostgreSQL). */
function sumOf(db: Executor, name: string, when: RawBuilder<unknown>) {
  const amount = sql.ref('amount');
  if (engineOf(db) === 'postgres')
    return [sql<string>`coalesce(sum(case when ${when} then ${amount}::numeric end), 0)::text`.as(`${name}_hi`)];
  return [
    sql<string>`cast(coalesce(sum(case when ${when} then cast(substr(${amount}, 1, max(length(${amount}) - ${sql.lit(LOW_DIGITS)}, 0)) as integer) end), 0) as text)`.as(
      `${name}_hi`,
    ),
    sql<string>`cast(coalesce(sum(case when ${when} then cast(substr(${amount}, -${sql.lit(LOW_DIGITS)}) as integer) end), 0) as text)`.as(
      `${name}_lo`,
    ),
  ];
}

function total(row: Sums, name: string): bigint {
  const hi = BigInt(String(row[`${name}_hi`] ?? '0'));
  const lo = row[`${name}_lo`];
  return lo === undefined ? hi : hi * 10n ** BigInt(LOW_DIGITS) + BigInt(String(lo ?? '0'));
}

export async function merchantSummary(db: Executor, merchantId: string, now: Date) {
  const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())).toISOString();
  const since = (days: number) => new Date(now.getTime() - days * DAY_MS).toISOString();
  const [d7, d30] = [since(7), since(30)];
  const from = today < d30 ? today : d30;
  const created = sql.ref('created_at');
  // deposits_merchant_created (merchant_id, created_at, id): the last 30 days of one merchant.
  const received = (await db
    .selectFrom('deposits')
    .select(['asset', 'decimals'])
    .select([
      ...sumOf(db, 'today', sql`${created} >= ${today}`),
      ...sumOf(db, 'd7', sql`${created} >= ${d7}`),
      ...sumOf(db, 'd30', sql`${created} >= ${d30}`),
    ])
    .where('merchant_id', '=', merchantId)
    .where('created_at', '>=', from)
    .where('status', '=', 'confirmed')
    .groupBy(['asset', 'decimals'])
    .execute()) as unknown as Sums[];
  // deposits_unsettled's WHERE term for term (migration 0037): every merchant's unsettled deposits are few.
  const pending = (await db
    .selectFrom('deposits')
    .select(['asset', 'decimals'])
    .select(sumOf(db, 'pending', sql`1 = 1`))
    .where((eb) => eb.or([eb('final', '=', 0), eb('credited_at', 'is', null)]))
    .where('status', '!=', 'orphaned')
    .where('merchant_id', '=', merchantId)
    .where('status', '=', 'seen')
    .groupBy(['asset', 'decimals'])
    .execute()) as unknown as Sums[];
  const byAsset = new Map<string, { decimals: number; today: bigint; d7: bigint; d30: bigint; pending: bigint }>();
  const entry = (r: Sums) => {
    const e = byAsset.get(r.asset) ?? { decimals: r.decimals, today: 0n, d7: 0n, d30: 0n, pending: 0n };
    byAsset.set(r.asset, e);
    return e;
  };
  for (const r of received) {
    const e = entry(r);
    e.today += total(r, 'today');
    e.d7 += total(r, 'd7');
    e.d30 += total(r, 'd30');
  }
  for (const r of pending) entry(r).pending += total(r, 'pending');
  const text = (v: bigint, decimals: number) => formatUnits(v.toString(), decimals);
  return {
    merchant_id: merchantId,
    open_exceptions: await countOpen(db, merchantId, OWNER_KINDS),
    as_of: now.toISOString(),
    today_from: today,
    assets: [...byAsset.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([asset, e]) => ({
        asset,
        received_today: text(e.today, e.decimals),
        received_7d: text(e.d7, e.decimals),
        received_30d: text(e.d30, e.decimals),
        pending: text(e.pending, e.decimals),
      })),
    daily: await dailyReceived(db, merchantId, today),
  };
}

/**
 * Received per UTC day for the chart: the 30 days up to and including today, zero-filled, for each
 * asset with a confirmed deposit in them. Timestamps are ISO text in UTC on both engines, so their
 * first ten characters are the day.
 */
async function dailyReceived(db: Executor, merchantId: string, todayFrom: string) {
  const dates = Array.from({ length: CHART_DAYS }, (_, i) =>
    new Date(Date.parse(todayFrom) - (CHART_DAYS - 1 - i) * DAY_MS).toISOString().slice(0, 10),
  );
  const day = sql<string>`substr(${sql.ref('created_at')}, 1, 10)`;
  const rows = (await db
    .selectFrom('deposits')
    .select(['asset', 'decimals', day.as('day')])
    .select(sumOf(db, 'amount', sql`1 = 1`))
    .where('merchant_id', '=', merchantId)
    .where('created_at', '>=', `${dates[0]}T00:00:00.000Z`)
    .where('status', '=', 'confirmed')
    .groupBy(['asset', 'decimals', day])
    .execute()) as unknown as (Sums & { day: string })[];
  const perAsset = new Map<string, { decimals: number; days: Map<string, bigint> }>();
  for (const r of rows) {
    const e = perAsset.get(r.asset) ?? { decimals: r.decimals, days: new Map<string, bigint>() };
    perAsset.set(r.asset, e);
    e.days.set(r.day, (e.days.get(r.day) ?? 0n) + total(r, 'amount'));
  }
  return [...perAsset.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .flatMap(([asset, e]) =>
      dates.map((date) => ({ date, asset, amount: formatUnits((e.days.get(date) ?? 0n).toString(), e.decimals) })),
    );
}

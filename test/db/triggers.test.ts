/**
 * The rules the database keeps by triggers, on the engine under test (SQLite's triggers, or their
 * PL/pgSQL twins of the PostgreSQL baseline): the row counts by status that /metrics reads stay
 * equal to a GROUP BY through any mix of inserts, status changes, other updates and deletes; an
 * invoice's derivation index is filled in from its address, must name its address, and neither
 * changes afterwards.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { countByStatus } from '../../src/operations/metrics.js';
import { tempDir } from '../helpers/app.js';
import { openTestDatabase } from '../helpers/database.js';

const TABLES = ['invoices', 'deposits', 'payouts'] as const;
type Table = (typeof TABLES)[number];
const STATUSES: Record<Table, readonly string[]> = {
  invoices: ['created', 'seen', 'confirmed', 'underpaid', 'expired', 'paid_late', 'settled'],
  deposits: ['seen', 'confirmed', 'orphaned'],
  payouts: ['pending_review', 'approved', 'queued', 'signing', 'broadcast', 'confirmed', 'rejected', 'failed'],
};
const AT = '2026-01-01T00:00:00.000Z';

/** A deterministic generator (mulberry32), so a failure replays. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let database: Database;
let next = 0;
const random = prng(7);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;

async function depositAddress(n: number): Promise<string> {
  const address = `a-${n}`;
  await database.db
    .insertInto('deposit_addresses')
    .values({ address, derivation_index: n, merchant_id: 'm', external_user_id: null, created_at: AT })
    .execute();
  return address;
}

function invoice(n: number, address: string, status: string) {
  return {
    id: `row-${n}`,
    merchant_id: 'm',
    order_id: `o-${n}`,
    status: status as never,
    asset: 'USDT_TRON',
    network: 'tron',
    decimals: 6,
    address,
    amount_requested: '1',
    amount_expected: '1',
    amount_received: '0',
    amount_credited: '0',
    service_fee_payer: 'merchant' as const,
    service_fee_percent: '0',
    service_fee_fixed: '0',
    service_fee_amount: '0',
    expires_at: AT,
    created_at: AT,
    updated_at: AT,
    // Left to the database, as the stores do.
    address_index: null as unknown as number,
  };
}

async function insert(table: Table, status = pick(STATUSES[table])): Promise<void> {
  const n = ++next;
  const id = `row-${n}`;
  const common = { id, merchant_id: 'm', asset: 'USDT_TRON', decimals: 6, created_at: AT, updated_at: AT };
  if (table === 'invoices') {
    await database.db
      .insertInto('invoices')
      .values(invoice(n, await depositAddress(n), status))
      .execute();
  } else if (table === 'deposits') {
    await database.db
      .insertInto('deposits')
      .values({
        ...common,
        address: `d-${n}`,
        amount: '1',
        tx_hash: `t-${n}`,
        log_index: 0,
        block_number: n,
        block_hash: 'h',
        block_time: AT,
        late: 0,
        status: status as never,
        confirmations: 0,
        final: 0,
      })
      .execute();
  } else {
    await database.db
      .insertInto('payouts')
      .values({
        ...common,
        reference: `r-${n}`,
        status: status as never,
        network: 'tron',
        to_address: 'T',
        amount: '1',
        fee_amount: '0',
        fee_charged: '0',
        review_reasons: '[]',
        sign_attempts: 0,
      })
      .execute();
  }
}

async function ids(table: Table): Promise<string[]> {
  return (await database.db.selectFrom(table).select('id').orderBy('id').execute()).map((r) => r.id);
}

/** What a GROUP BY says, as countByStatus reports it. */
async function grouped(table: Table) {
  const rows = await database.db
    .selectFrom(table)
    .select(['status', (eb) => eb.fn.countAll().as('n')])
    .groupBy('status')
    .orderBy('status')
    .execute();
  return rows.map((r) => ({ labels: { status: r.status }, value: Number(r.n) }));
}

async function expectCountsMatch(): Promise<void> {
  for (const t of TABLES) expect(await countByStatus(database.db, t), t).toEqual(await grouped(t));
}

beforeAll(async () => {
  database = await openTestDatabase(path.join(tempDir(), 'triggers.db'));
  await migrateToLatest(database.db);
  await database.db
    .insertInto('merchants')
    .values({
      id: 'm',
      name: 'Shop',
      address_mode: 'per_invoice',
      approval: 'approved',
      enabled: 1,
      owner_enabled: 1,
      site_url: null,
      return_url: null,
      cancel_url: null,
      legacy_network_fee_payer: null,
      confirmations: null,
      created_at: AT,
      updated_at: AT,
    })
    .execute();
});
afterAll(() => database?.close());

describe('row counts by status', () => {
  it('the triggers keep them through inserts, status changes, other updates and deletes', async () => {
    for (let step = 0; step < 300; step++) {
      const t = pick(TABLES);
      const op = random();
      const id = pick(await ids(t));
      const status = pick(STATUSES[t]) as never;
      if (op < 0.35 || id === undefined) await insert(t);
      else if (op < 0.6)
        await database.db.updateTable(t).set({ status, updated_at: AT }).where('id', '=', id).execute();
      else if (op < 0.7)
        await database.db
          .updateTable(t)
          .set({ updated_at: `${step}` })
          .where('id', '=', id)
          .execute();
      else if (op < 0.8)
        await database.db
          .updateTable(t)
          .set({ status })
          .where('status', '=', pick(STATUSES[t]) as never)
          .execute();
      else if (op < 0.95) await database.db.deleteFrom(t).where('id', '=', id).execute();
      else await database.db.deleteFrom(t).where('status', '=', status).execute();
      if (step % 50 === 0) await expectCountsMatch();
    }
    await expectCountsMatch();
  });

  it('a write that fails a CHECK changes no count: the trigger work goes with the statement', async () => {
    await database.db.deleteFrom('payouts').execute();
    await insert('payouts', 'failed');
    expect(await countByStatus(database.db, 'payouts')).toEqual([{ labels: { status: 'failed' }, value: 1 }]);
    await expect(
      database.db
        .updateTable('payouts')
        .set({ status: 'lost' as never })
        .execute(),
    ).rejects.toThrow(/check/i);
    await expect(insert('payouts', 'lost')).rejects.toThrow(/check/i);
    expect(await countByStatus(database.db, 'payouts')).toEqual([{ labels: { status: 'failed' }, value: 1 }]);
  });
});

describe('an invoice and its deposit address', () => {
  it('gets the derivation index of its address when the insert leaves it out', async () => {
    const n = ++next;
    await database.db
      .insertInto('invoices')
      .values(invoice(n, await depositAddress(n), 'created'))
      .execute();
    const row = await database.db
      .selectFrom('invoices')
      .select('address_index')
      .where('id', '=', `row-${n}`)
      .executeTakeFirstOrThrow();
    expect(row.address_index).toBe(n);
  });

  it('is refused with an index that is not its address', async () => {
    const n = ++next;
    await depositAddress(n);
    const other = ++next;
    await depositAddress(other);
    await expect(
      database.db
        .insertInto('invoices')
        .values({ ...invoice(n, `a-${n}`, 'created'), address_index: other })
        .execute(),
    ).rejects.toThrow(/invoice address is not the deposit address of its address_index/);
    expect(await database.db.selectFrom('invoices').select('id').where('id', '=', `row-${n}`).execute()).toEqual([]);
  });

  it('keeps its address and its index', async () => {
    const n = ++next;
    await database.db
      .insertInto('invoices')
      .values(invoice(n, await depositAddress(n), 'created'))
      .execute();
    const other = ++next;
    await depositAddress(other);
    for (const change of [{ address: `a-${other}` }, { address_index: other }]) {
      await expect(
        database.db.updateTable('invoices').set(change).where('id', '=', `row-${n}`).execute(),
      ).rejects.toThrow(/an invoice keeps its deposit address/);
    }
    // Other columns change freely.
    await database.db.updateTable('invoices').set({ status: 'seen' }).where('id', '=', `row-${n}`).execute();
  });
});

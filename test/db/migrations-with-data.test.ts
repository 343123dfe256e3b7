/**
 * Migrations with data: for every earlier schema version (every prefix of
 * MIGRATIONS, whatever migrations are added later), a database at that version is filled with the
 * rows that version can hold (merchants, keys, the wallet and deposit addresses, invoices, ledger
 * entries, payouts), upgraded by `paygate migrate`, and then served unchanged by the current code.
 */
import argon2 from 'argon2';
import path from 'node:path';
import { expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { ManualClock } from '../../src/clock.js';
import { parseConfig } from '../../src/config.js';
import { openSqlite } from '../../src/db/database.js';
import { MIGRATIONS, migrateUpTo } from '../../src/db/migrate.js';
import { invoiceOfAddress } from '../../src/invoices/store.js';
import { publicInfoOf } from '../../src/wallet/hd.js';
import { tempDir, TEST_HASH_COST } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { api } from '../helpers/http.js';
import { TEST_MNEMONIC, VECTORS } from '../invoices/fixture.js';
import { describeSqliteOnly } from '../helpers/database.js';

const NAMES = Object.keys(MIGRATIONS).sort();
const AT = '2026-02-01T10:00:00.000Z';
const MERCHANT = '6f1c0a9e-1b2c-4d3e-8f40-5a6b7c8d9e01';
const INVOICE = '0b9e1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d';
const PAYOUT = '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f';
const KEY_ID = '0123456789abcdef';
const SECRET = 'S'.repeat(43);
const API_KEY = `sk_${KEY_ID}_${SECRET}`;
const TO = 'TYJPRrdB5APNeRs4R7fYZSwW3TcrTKw2gx';

/** Rows as the code of their time wrote them; a column a version lacks is left out. */
async function rows(): Promise<Array<[table: string, row: Record<string, unknown>]>> {
  const wallet = publicInfoOf(TEST_MNEMONIC);
  const ledger = (
    seq: number,
    kind: string,
    amount: string,
    balance: string,
    reserved: string,
    payout: string | null = null,
  ) => ({
    merchant_id: MERCHANT,
    asset: 'USDT_TRON',
    seq,
    kind,
    amount,
    balance_after: balance,
    reserved_after: reserved,
    payout_id: payout,
    memo: payout ? null : 'opening balance',
    actor: 'cli:op',
    created_at: AT,
    source_ref: null,
  });
  return [
    [
      'merchants',
      {
        id: MERCHANT,
        name: 'Old shop',
        address_mode: 'per_invoice',
        approval: 'approved',
        enabled: 1,
        site_url: null,
        return_url: null,
        cancel_url: null,
        legacy_network_fee_payer: null,
        confirmations: null,
        created_at: AT,
        updated_at: AT,
      },
    ],
    [
      'api_keys',
      {
        key_id: KEY_ID,
        merchant_id: MERCHANT,
        secret_hash: await argon2.hash(SECRET, { type: argon2.argon2id, ...TEST_HASH_COST }),
        created_at: AT,
        revoked_at: null,
      },
    ],
    [
      'wallet',
      {
        id: 1,
        deposit_xpub: wallet.depositXpub,
        deposit_path: "m/44'/195'/0'/0",
        hot_address: wallet.hotAddress,
        hot_path: "m/44'/195'/1'/0/0",
        next_index: 1,
        created_at: AT,
      },
    ],
    [
      'deposit_addresses',
      { address: VECTORS[0], derivation_index: 0, merchant_id: MERCHANT, external_user_id: null, created_at: AT },
    ],
    [
      'invoices',
      {
        id: INVOICE,
        merchant_id: MERCHANT,
        order_id: 'order-old',
        status: 'created',
        asset: 'USDT_TRON',
        network: 'tron',
        decimals: 6,
        address: VECTORS[0],
        external_user_id: null,
        amount_requested: '10500000',
        amount_expected: '10500000',
        amount_received: '0',
        amount_credited: '0',
        service_fee_payer: 'merchant',
        service_fee_percent: '0',
        service_fee_fixed: '0',
        service_fee_amount: '0',
        return_url: null,
        cancel_url: null,
        expires_at: '2099-01-01T00:00:00.000Z',
        created_at: AT,
        updated_at: AT,
      },
    ],
    ['ledger_entries', ledger(1, 'credit', '100000000', '100000000', '0')],
    ['ledger_entries', ledger(2, 'reserve', '20000000', '100000000', '20000000', PAYOUT)],
    [
      'payouts',
      {
        id: PAYOUT,
        merchant_id: MERCHANT,
        reference: 'ref-old',
        status: 'pending_review',
        asset: 'USDT_TRON',
        network: 'tron',
        decimals: 6,
        to_address: TO,
        amount: '20000000',
        fee_amount: '0',
        fee_charged: '0',
        fee_schedule_id: null,
        review_reasons: '["first_payout_to_address"]',
        tx_hash: null,
        reviewed_by: null,
        reviewed_at: null,
        reject_reason: null,
        created_at: AT,
        updated_at: AT,
      },
    ],
  ];
}

/** A database file at schema version `name`, filled with every row that version can hold. */
async function databaseAt(name: string, file: string): Promise<Set<string>> {
  const database = openSqlite(file);
  await migrateUpTo(database.db, name);
  const filled = new Set<string>();
  for (const [table, row] of await rows()) {
    const columns = (database.sqlite.prepare(`pragma table_info("${table}")`).all() as Array<{ name: string }>).map(
      (c) => c.name,
    );
    if (columns.length === 0) continue; // the table comes in a later version
    // A ledger reservation only with the payout it reserves for (both exist from 0012 on).
    if (
      table === 'ledger_entries' &&
      row.payout_id &&
      !database.sqlite.prepare("select 1 from sqlite_master where name = 'payouts'").get()
    )
      continue;
    const present = Object.keys(row).filter((c) => columns.includes(c));
    database.sqlite
      .prepare(
        `insert into "${table}" (${present.map((c) => `"${c}"`).join(', ')}) values (${present.map(() => '?').join(', ')})`,
      )
      .run(...present.map((c) => row[c]));
    filled.add(table);
  }
  await database.close();
  return filled;
}

describeSqliteOnly("SQLite's migration history from 0001; a PostgreSQL database starts at the baseline")(
  'upgrades with data',
  () => {
    it.each(NAMES.slice(0, -1))(
      'a database at %s is upgraded by `paygate migrate` and served unchanged',
      async (name) => {
        const dir = tempDir();
        const file = path.join(dir, 'paygate.db');
        const filled = await databaseAt(name, file);
        const env = { DATABASE_URL: file, TRON_NETWORK: 'devnet', WALLET_KEYSTORE: path.join(dir, 'ks.json') };

        // A routine command refuses the old schema; migrate upgrades it.
        expect((await runCli(['merchant', 'list', '--json'], env)).json.error.code).toBe('invalid_state');
        const migrated = await runCli(['migrate', '--json'], env);
        expect(migrated.code, migrated.stdout + migrated.stderr).toBe(0);
        expect(migrated.json.current).toBe(NAMES.at(-1));
        expect(migrated.json.applied).toEqual(NAMES.slice(NAMES.indexOf(name) + 1));

        const shown = await runCli(['merchant', 'show', MERCHANT, '--json'], env);
        expect(shown.json).toMatchObject({
          merchant_id: MERCHANT,
          name: 'Old shop',
          approval: 'approved',
          enabled: true,
        });

        const app = await buildApp(
          parseConfig({ ADMIN_PORT: '0', CABINET_PORT: '0', PAY_PORT: '0', ...env, PORT: '0', LOG_LEVEL: 'silent' }),
          {
            clock: new ManualClock('2026-03-01T10:00:00Z'),
            workers: false,
          },
        );
        try {
          const url = await app.start();
          // The old key still authenticates.
          expect(
            (await api(url, `/v1/invoices/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`, { key: API_KEY })).body
              .error.code,
          ).toBe('invoice_not_found');
          if (filled.has('invoices')) {
            const inv = await api(url, `/v1/invoices/${INVOICE}`, { key: API_KEY });
            expect(inv.status, inv.text).toBe(200);
            expect(inv.body).toMatchObject({
              invoice_id: INVOICE,
              order_id: 'order-old',
              status: 'created',
              asset: 'USDT_TRON',
              address: VECTORS[0],
              amount_requested: '10.5',
            });
            // The watcher still finds it from its address: a payment to it pays it (0040's backfill).
            expect(await invoiceOfAddress(app.services.db, VECTORS[0] as string, 0)).toMatchObject({
              id: INVOICE,
              asset: 'USDT_TRON',
            });
          }
          if (filled.has('wallet')) {
            // The index counter carried over: a new invoice gets the next address, never a used one.
            const fresh = await api(url, '/v1/invoices', {
              key: API_KEY,
              body: { order_id: 'order-new', asset: 'USDT_TRON', amount: '1', expires_in: 900 },
            });
            expect(fresh.status, fresh.text).toBe(201);
            expect(fresh.body.address).toBe(VECTORS[1]);
          }
          if (filled.has('payouts')) {
            const p = await api(url, `/v1/payouts/${PAYOUT}`, { key: API_KEY });
            expect(p.status, p.text).toBe(200);
            expect(p.body).toMatchObject({
              payout_id: PAYOUT,
              reference: 'ref-old',
              status: 'pending_review',
              amount: '20',
              to_address: TO,
            });
          }
        } finally {
          await app.stop();
        }
        if (filled.has('ledger_entries')) {
          const balance = await runCli(['merchant', 'balance', MERCHANT, '--json'], env);
          const reserved = filled.has('payouts') ? '20' : '0';
          expect(balance.json.balances).toEqual([
            { asset: 'USDT_TRON', available: String(100 - Number(reserved)), reserved, total: '100' },
          ]);
        }
      },
    );
  },
);

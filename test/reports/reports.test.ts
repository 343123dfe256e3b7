/**
 * The invoice, payout and deposit reports over a history made with the real services on a real
 * SQLite file: the period is half-open, rows come in time-then-id order with their fixed columns,
 * amounts are decimal text, the CSV is RFC 4180 with formula injection neutralised, and the same
 * period gives the same bytes whatever the batch size. Through the CLI: a file written whole, its
 * digest, refusals that change nothing.
 */
import { parse } from 'node:path';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openReport, type ReportRequest } from '../../src/reports/service.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/app.js';
import { startInvoiceApp, type InvoiceTestApp } from '../invoices/fixture.js';
import { Books, type Shop } from './books.js';

let t: InvoiceTestApp;
let books: Books;
let shop: Shop;
let other: Shop;
/** Boundaries of the history: [start, end) holds everything. */
let start: string;
let end: string;
const ids: Record<string, any> = {};

async function text(req: Omit<ReportRequest, 'format'> & { format?: 'csv' | 'json' }, batchSize?: number) {
  const report = await openReport(
    { db: t.app.services.db, catalog: t.app.services.catalog },
    { format: 'csv', ...req },
    { batchSize },
  );
  let out = '';
  for await (const chunk of report.chunks) out += chunk;
  return out;
}

/** A minimal RFC 4180 reader for the assertions (quoted fields, doubled quotes, CRLF). */
function readCsv(csv: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < csv.length; i++) {
    const c = csv[i]!;
    if (quoted) {
      if (c === '"' && csv[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && csv[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  expect(cell, 'the last record ends with CRLF').toBe('');
  return rows;
}

beforeAll(async () => {
  t = await startInvoiceApp();
  books = new Books(t);
  shop = await books.shop({ feePercent: '1' });
  other = await books.shop();
  await books.payoutFee('USDT_TRON', '1');
  start = t.clock.now().toISOString();
  books.tick();
  // An order id a spreadsheet would run as a formula, and one CSV must quote.
  ids.formula = await books.invoice(shop, '10.5', { order_id: '=HYPERLINK("http://x","y")' });
  books.tick();
  ids.quoted = await books.invoice(other, '1.000001', { order_id: 'a,"b"' });
  books.tick();
  ids.paid = await books.invoice(shop, '100');
  ids.paidTx = (await books.pay(ids.paid.address, shop.id, 60_000_000n)).txHash;
  books.tick();
  ids.paidTx2 = (await books.pay(ids.paid.address, shop.id, 40_000_000n)).txHash;
  books.tick();
  // A standalone deposit in another asset than the invoice's: TRX to the same address.
  ids.trxTx = (await books.pay(ids.paid.address, shop.id, 2_500_000n, { asset: 'TRX_TRON' })).txHash;
  books.tick();
  ids.seenTx = (await books.pay(ids.formula.address, shop.id, 1_000_000n, { final: false })).txHash;
  books.tick();
  ids.payout = await books.payout(shop, '20');
  ids.payoutTx = await books.settlePayout(ids.payout.id, 'confirmed');
  books.tick();
  ids.rejected = await books.payout(shop, '5');
  await books.reject(ids.rejected.id);
  books.tick();
  end = t.clock.now().toISOString();
  books.tick(60_000);
  // After the period: never in it.
  ids.after = await books.invoice(shop, '1');
});
afterAll(() => t.close());

describe('the invoice report', () => {
  it('lists the invoices created in [from, to), oldest first, in its fixed columns with decimal amounts', async () => {
    const rows = readCsv(await text({ kind: 'invoices', from: start, to: end }));
    expect(rows[0]).toEqual([
      'invoice_id',
      'created_at_utc',
      'merchant_id',
      'merchant_name',
      'order_id',
      'status',
      'asset',
      'amount_requested',
      'amount_expected',
      'amount_received',
      'amount_credited',
      'service_fee_payer',
      'service_fee_percent',
      'service_fee_charged',
      'address',
      'external_user_id',
      'expires_at_utc',
      'tx_hashes',
    ]);
    expect(rows.slice(1).map((r) => r[0])).toEqual([
      ids.formula.invoice_id,
      ids.quoted.invoice_id,
      ids.paid.invoice_id,
    ]);
    const paid = rows[3]!;
    expect(paid.slice(5, 14)).toEqual(['settled', 'USDT_TRON', '100', '100', '100', '99', 'merchant', '1', '1']);
    // Both deposits' hashes, in chain order.
    expect(paid[17]).toBe(`${ids.paidTx} ${ids.paidTx2}`);
    expect(rows[2]!.slice(4, 8)).toEqual(['a,"b"', 'created', 'USDT_TRON', '1.000001']);
  });

  it('is spreadsheet-friendly: UTC times a spreadsheet reads, the merchant by name, the fee as charged', async () => {
    const rows = readCsv(await text({ kind: 'invoices', from: start, to: end }));
    const [, unpaid] = rows;
    // 2026-03-01T10:00:01.000Z is written 2026-03-01 10:00:01.
    expect(unpaid![1]).toBe((ids.formula.created_at as string).slice(0, 19).replace('T', ' '));
    expect(unpaid![16]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(unpaid![2]).toBe(shop.id);
    expect(unpaid![3]).toBe('Books shop');
    // Quoted 1 % of 10.5, but nothing credited yet: nothing charged, so summing the column is the fees earned.
    expect(unpaid![13]).toBe('0');
    const json = JSON.parse(await text({ kind: 'invoices', from: start, to: end, format: 'json' }));
    expect(json.invoices[0]).toMatchObject({
      created_at: ids.formula.created_at,
      merchant_name: 'Books shop',
      service_fee_charged: '0',
    });
  });

  it('neutralises a cell a spreadsheet would run as a formula with a leading quote', async () => {
    const csv = await text({ kind: 'invoices', from: start, to: end });
    expect(csv).toContain(`,"'=HYPERLINK(""http://x"",""y"")",`);
    expect(readCsv(csv)[1]![4]).toBe(`'=HYPERLINK("http://x","y")`);
  });

  it('takes `from` in and leaves `to` out', async () => {
    const at = ids.quoted.created_at as string;
    const before = readCsv(await text({ kind: 'invoices', from: start, to: at }));
    const from = readCsv(await text({ kind: 'invoices', from: at, to: end }));
    expect(before.slice(1).map((r) => r[0])).toEqual([ids.formula.invoice_id]);
    expect(from.slice(1).map((r) => r[0])).toEqual([ids.quoted.invoice_id, ids.paid.invoice_id]);
  });

  it('shows one merchant only when asked', async () => {
    const rows = readCsv(await text({ kind: 'invoices', from: start, to: end, merchantId: other.id }));
    expect(rows.slice(1).map((r) => r[0])).toEqual([ids.quoted.invoice_id]);
  });

  it('gives the same bytes for the same past period, whatever the batch size', async () => {
    for (const format of ['csv', 'json'] as const) {
      const whole = await text({ kind: 'invoices', from: start, to: end, format });
      expect(await text({ kind: 'invoices', from: start, to: end, format }, 1)).toBe(whole);
      expect(await text({ kind: 'invoices', from: start, to: end, format }, 2)).toBe(whole);
    }
  });

  it('as JSON is {from, to, invoices} with the same columns, the hashes as a list', async () => {
    const body = JSON.parse(await text({ kind: 'invoices', from: start, to: end, format: 'json' }));
    expect(Object.keys(body)).toEqual(['from', 'to', 'invoices']);
    expect(body.from).toBe(start);
    expect(body.invoices).toHaveLength(3);
    expect(body.invoices[2]).toMatchObject({
      invoice_id: ids.paid.invoice_id,
      amount_credited: '99',
      tx_hashes: [ids.paidTx, ids.paidTx2],
    });
    expect(body.invoices[0].order_id).toBe('=HYPERLINK("http://x","y")');
    expect(JSON.parse(await text({ kind: 'invoices', from: end, to: '2100-01-01', format: 'json' })).invoices).toEqual([
      expect.objectContaining({ invoice_id: ids.after.invoice_id }),
    ]);
    expect(await text({ kind: 'invoices', from: '2000-01-01', to: '2000-01-02', format: 'json' })).toBe(
      '{"from":"2000-01-01T00:00:00.000Z","to":"2000-01-02T00:00:00.000Z","invoices":[]}\n',
    );
  });
});

describe('the payout and deposit reports', () => {
  it('lists payouts with their amounts, fees charged and transaction hash', async () => {
    const rows = readCsv(await text({ kind: 'payouts', from: start, to: end }));
    expect(rows[0]).toEqual([
      'payout_id',
      'created_at_utc',
      'merchant_id',
      'merchant_name',
      'reference',
      'status',
      'asset',
      'amount',
      'fee_amount',
      'fee_charged',
      'to_address',
      'tx_hash',
    ]);
    expect(rows.slice(1).map((r) => [r[0], r[5], r[7], r[8], r[9], r[11]])).toEqual([
      [ids.payout.id, 'confirmed', '20', '1', '1', ids.payoutTx],
      [ids.rejected.id, 'rejected', '5', '1', '0', ''],
    ]);
  });

  it('lists live deposits by block time with their credit and fee; a TRX transfer keeps log index -1 as a number', async () => {
    const rows = readCsv(await text({ kind: 'deposits', from: start, to: end }));
    expect(rows[0]).toEqual([
      'deposit_id',
      'block_time_utc',
      'merchant_id',
      'merchant_name',
      'asset',
      'amount',
      'tx_hash',
      'log_index',
      'block_number',
      'from_address',
      'address',
      'invoice_id',
      'external_user_id',
      'status',
      'late',
      'credited_amount',
      'fee',
      'credited_at_utc',
    ]);
    const byTx = new Map(rows.slice(1).map((r) => [r[6], r]));
    expect(rows.slice(1).map((r) => r[6])).toEqual([ids.paidTx, ids.paidTx2, ids.trxTx, ids.seenTx]);
    // The invoice's fee (1 USDT) is taken from its first deposit.
    expect(byTx.get(ids.paidTx)!.slice(13, 17)).toEqual(['confirmed', 'false', '59', '1']);
    expect(byTx.get(ids.paidTx2)!.slice(13, 17)).toEqual(['confirmed', 'false', '40', '0']);
    // Standalone TRX, 1 % fee, rounded up to the sun.
    expect(byTx.get(ids.trxTx)!.slice(4, 8)).toEqual(['TRX_TRON', '2.5', ids.trxTx, '-1']);
    expect(byTx.get(ids.trxTx)!.slice(11, 17)).toEqual(['', '', 'confirmed', 'false', '2.475', '0.025']);
    expect(byTx.get(ids.seenTx)!.slice(13, 18)).toEqual(['seen', 'false', '', '', '']);
    expect(await text({ kind: 'deposits', from: start, to: end })).toContain(`,${ids.trxTx},-1,`);
  });
});

describe('paygate report', () => {
  const env = () => ({ DATABASE_URL: t.app.config.databaseUrl, TRON_NETWORK: 'devnet' });

  it('writes the report to --output whole, with a digest that repeats for the same period', async () => {
    const dir = tempDir('paygate-report-');
    const files = [path.join(dir, 'a.csv'), path.join(dir, 'b.csv')];
    const sums: string[] = [];
    for (const file of files) {
      const r = await runCli(['report', 'invoices', '--from', start, '--to', end, '--output', file, '--json'], env());
      expect(r.code, r.stderr + r.stdout).toBe(0);
      expect(r.json).toMatchObject({ kind: 'invoices', from: start, to: end, rows: 3, format: 'csv', output: file });
      const bytes = readFileSync(file);
      expect(r.json.bytes).toBe(bytes.length);
      expect(r.json.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      sums.push(r.json.sha256);
    }
    expect(sums[1]).toBe(sums[0]);
    expect(readFileSync(files[0]!, 'utf8')).toBe(await text({ kind: 'invoices', from: start, to: end }));
    // Nothing but the two reports in the directory: no temporary file left behind.
    expect(readdirSync(dir).sort()).toEqual(['a.csv', 'b.csv']);
  });

  it('streams to stdout without --output', async () => {
    const r = await runCli(['report', 'payouts', '--from', start, '--to', end, '--format', 'json'], env());
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).payouts.map((p: any) => p.payout_id)).toEqual([ids.payout.id, ids.rejected.id]);
  });

  it('refuses a bad period, an unknown merchant or an existing file, and writes nothing', async () => {
    const dir = tempDir('paygate-report-');
    const file = path.join(dir, 'r.csv');
    const cases: Array<[string[], string, RegExp]> = [
      [['--from', '2026-03-01', '--to', '2026-03-01'], 'invalid_argument', /must be before/],
      [['--from', '2026-02-30', '--to', '2026-03-02'], 'invalid_argument', /not a real date/],
      [['--from', '2026-03-01T00:00:00', '--to', '2026-03-02'], 'invalid_argument', /no time zone/],
      [['--from', 'March', '--to', '2026-03-02'], 'invalid_argument', /from "March" is not a date/],
      [
        ['--from', '2026-03-01', '--to', '2026-03-02', '--merchant', '00000000-0000-4000-8000-000000000000'],
        'merchant_not_found',
        /./,
      ],
    ];
    for (const [args, code, message] of cases) {
      const r = await runCli(['report', 'ledger', ...args, '--output', file, '--json'], env());
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.json.error.code).toBe(code);
      expect(r.json.error.message).toMatch(message);
      expect(existsSync(file)).toBe(false);
    }
    const ok = await runCli(['report', 'ledger', '--from', start, '--to', end, '--output', file, '--json'], env());
    expect(ok.code).toBe(0);
    const again = await runCli(['report', 'ledger', '--from', start, '--to', end, '--output', file, '--json'], env());
    expect(again.json.error).toMatchObject({
      code: 'invalid_argument',
      message: expect.stringMatching(/already exists/),
    });
    expect(readdirSync(dir)).toEqual([parse(file).base]);
  });
});

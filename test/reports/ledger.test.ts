/**
 * The ledger report over histories made with the real services on a real SQLite file: its exact
 * JSON shape, signed amounts (a reservation moves nothing: "0"), sources and references, the CSV
 * with unsigned amounts and a direction, and, over random histories (deposits with their fees,
 * standalone deposits, payouts confirmed, failed, rejected or still pending, corrections), the
 * report's equation: opening + Σ entries = closing for every account and every period,
 * consecutive periods chained, every entry in exactly one period, and the last closing equal to
 * the merchant's balance.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balance } from '../../src/ledger/service.js';
import { formatAmount, parseAmountOrZero } from '../../src/money.js';
import { openReport, type ReportRequest } from '../../src/reports/service.js';
import { startInvoiceApp, type InvoiceTestApp } from '../invoices/fixture.js';
import { Books, type Shop } from './books.js';

let t: InvoiceTestApp;
let books: Books;

async function report(req: Omit<ReportRequest, 'kind' | 'format'>, format: 'csv' | 'json' = 'json', batchSize = 1000) {
  const r = await openReport(
    { db: t.app.services.db, catalog: t.app.services.catalog },
    { kind: 'ledger', format, ...req },
    { batchSize },
  );
  let out = '';
  for await (const chunk of r.chunks) out += chunk;
  return out;
}

const units = (text: string) =>
  text.startsWith('-') ? -parseAmountOrZero(text.slice(1), 6) : parseAmountOrZero(text, 6);

beforeAll(async () => {
  t = await startInvoiceApp();
  books = new Books(t);
  await books.payoutFee('USDT_TRON', '1');
});
afterAll(() => t.close());

describe('the ledger report', () => {
  let shop: Shop;
  let start: string;
  let mid: string;
  let end: string;
  const h: Record<string, any> = {};

  beforeAll(async () => {
    shop = await books.shop({ feePercent: '1' });
    start = t.clock.now().toISOString();
    books.tick();
    const inv = await books.invoice(shop, '100');
    h.deposit = await books.pay(inv.address, shop.id, 100_000_000n);
    books.tick();
    await books.credit(shop, '5', 'USDT_TRON', 'TICKET-7');
    books.tick();
    h.payout = await books.payout(shop, '20');
    books.tick();
    mid = t.clock.now().toISOString();
    await books.settlePayout(h.payout.id, 'confirmed');
    books.tick();
    h.rejected = await books.payout(shop, '3');
    await books.reject(h.rejected.id);
    books.tick();
    await books.debit(shop, '0.5');
    books.tick();
    end = t.clock.now().toISOString();
  });

  it('gives per account the opening, every entry with its signed change and source, and the closing', async () => {
    const body = JSON.parse(await report({ from: start, to: end, merchantId: shop.id }));
    expect(Object.keys(body)).toEqual(['from', 'to', 'accounts']);
    expect(body.accounts).toHaveLength(1);
    const [acct] = body.accounts;
    expect(Object.keys(acct)).toEqual(['merchant_id', 'merchant_name', 'asset', 'opening', 'closing', 'entries']);
    expect(acct).toMatchObject({ merchant_id: shop.id, asset: 'USDT_TRON', opening: '0', closing: '82.5' });
    const entries = acct.entries.map((e: any) => [e.kind, e.amount, e.source, e.reference]);
    expect(entries).toEqual([
      ['credit', '99', 'deposit', `${h.deposit.txHash}:0`],
      ['credit', '5', 'correction', 'TICKET-7'],
      ['reserve', '0', 'payout', h.payout.id],
      ['release', '0', 'payout', h.payout.id],
      ['debit', '-21', 'payout', h.payout.id],
      ['reserve', '0', 'payout', h.rejected.id],
      ['release', '0', 'payout', h.rejected.id],
      ['debit', '-0.5', 'correction', null],
    ]);
    expect(Object.keys(acct.entries[0])).toEqual(['entry_id', 'at', 'kind', 'amount', 'source', 'reference']);
    const ids = acct.entries.map((e: any) => e.entry_id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect((await balance(t.app.services.db, shop.id, 'USDT_TRON')).balance).toBe(82_500_000n);
  });

  it('chains periods: the closing of one is the opening of the next, and no entry is in both', async () => {
    const whole = JSON.parse(await report({ from: start, to: end, merchantId: shop.id })).accounts[0];
    const first = JSON.parse(await report({ from: start, to: mid, merchantId: shop.id })).accounts[0];
    const second = JSON.parse(await report({ from: mid, to: end, merchantId: shop.id })).accounts[0];
    expect(first.closing).toBe(second.opening);
    expect(first.opening).toBe(whole.opening);
    expect(second.closing).toBe(whole.closing);
    expect([...first.entries, ...second.entries]).toEqual(whole.entries);
    // A period after the last entry still lists the account: its balance at month end.
    const later = JSON.parse(await report({ from: end, to: '2100-01-01', merchantId: shop.id })).accounts[0];
    expect(later).toEqual({
      merchant_id: shop.id,
      merchant_name: 'Books shop',
      asset: 'USDT_TRON',
      opening: '82.5',
      closing: '82.5',
      entries: [],
    });
    // A period before the first entry has no account.
    expect(JSON.parse(await report({ from: '2000-01-01', to: start, merchantId: shop.id })).accounts).toEqual([]);
  });

  it('as CSV has opening, entry and closing lines with signed amounts as in JSON, no reservation lines, times a spreadsheet reads', async () => {
    const csv = await report({ from: start, to: end, merchantId: shop.id }, 'csv');
    const lines = csv.split('\r\n').filter(Boolean);
    expect(lines[0]).toBe(
      'merchant_id,merchant_name,asset,line,entry_id,at_utc,kind,direction,amount,balance,source,reference',
    );
    const cells = lines.slice(1).map((l) => l.split(','));
    expect(cells.map((c) => [c[1], c[3], c[6], c[7], c[8], c[9]])).toEqual([
      ['Books shop', 'opening', '', '', '', '0'],
      ['Books shop', 'entry', 'credit', 'in', '99', '99'],
      ['Books shop', 'entry', 'credit', 'in', '5', '104'],
      ['Books shop', 'entry', 'debit', 'out', '-21', '83'],
      ['Books shop', 'entry', 'debit', 'out', '-0.5', '82.5'],
      ['Books shop', 'closing', '', '', '', '82.5'],
    ]);
    // A negative amount is a number to a spreadsheet: never turned into text.
    expect(cells.some((c) => c.some((cell) => cell.startsWith("'")))).toBe(false);
    const spreadsheet = (iso: string) => iso.slice(0, 19).replace('T', ' ');
    expect(cells[0]![5]).toBe(spreadsheet(start));
    expect(cells.at(-1)![5]).toBe(spreadsheet(end));
    // The entries' signed amounts add up from the opening to the closing, as in JSON.
    const sum = cells.filter((c) => c[3] === 'entry').reduce((acc, c) => acc + units(c[8]!), 0n);
    expect(sum).toBe(82_500_000n);
  });

  it('gives the same bytes whatever the batch size', async () => {
    for (const format of ['csv', 'json'] as const) {
      const whole = await report({ from: start, to: end }, format);
      expect(await report({ from: start, to: end }, format, 1)).toBe(whole);
      expect(await report({ from: start, to: end }, format, 3)).toBe(whole);
    }
  });
});

describe('a clock stepped back', () => {
  it('never dates an entry before the one it follows, so the periods still hold every entry once', async () => {
    const shop = await books.shop();
    const before = t.clock.now().toISOString();
    books.tick(60_000);
    await books.credit(shop, '10');
    const first = t.clock.now().toISOString();
    // The clock goes an hour back (NTP, another process's clock): the next entry keeps the date.
    books.tick(-3_600_000);
    await books.credit(shop, '5');
    books.tick(3_600_000 + 60_000);
    const after = t.clock.now().toISOString();
    const body = JSON.parse(await report({ from: before, to: after, merchantId: shop.id }));
    expect(body.accounts[0].entries.map((e: any) => [e.amount, e.at])).toEqual([
      ['10', first],
      ['5', first],
    ]);
    const split = JSON.parse(await report({ from: before, to: first, merchantId: shop.id })).accounts;
    expect(split).toEqual([]);
    expect(JSON.parse(await report({ from: first, to: after, merchantId: shop.id })).accounts[0]).toMatchObject({
      opening: '0',
      closing: '15',
    });
  });
});

type Step =
  | { kind: 'invoice'; amount: number; parts: number; final: boolean[] }
  | { kind: 'standalone'; amount: number }
  | { kind: 'payout'; share: number; end: 'confirmed' | 'failed' | 'rejected' | 'pending' }
  | { kind: 'credit'; amount: number }
  | { kind: 'debit'; share: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('invoice' as const),
    amount: fc.integer({ min: 1_000_000, max: 500_000_000 }),
    parts: fc.integer({ min: 1, max: 3 }),
    final: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
  }),
  fc.record({ kind: fc.constant('standalone' as const), amount: fc.integer({ min: 1, max: 50_000_000 }) }),
  fc.record({
    kind: fc.constant('payout' as const),
    share: fc.integer({ min: 1, max: 100 }),
    end: fc.constantFrom('confirmed' as const, 'failed' as const, 'rejected' as const, 'pending' as const),
  }),
  fc.record({ kind: fc.constant('credit' as const), amount: fc.integer({ min: 1, max: 100_000_000 }) }),
  fc.record({ kind: fc.constant('debit' as const), share: fc.integer({ min: 1, max: 100 }) }),
);

/** Runs one step with the real services; the clock moves 0 to 2 days before it (0: same-instant entries). */
async function apply(shop: Shop, s: Step, gapMs: number): Promise<void> {
  books.tick(gapMs);
  const db = t.app.services.db;
  const available = async (asset: string) => (await balance(db, shop.id, asset)).available;
  switch (s.kind) {
    case 'invoice': {
      const inv = await books.invoice(shop, formatAmount(BigInt(s.amount), 6));
      const part = BigInt(s.amount) / BigInt(s.parts);
      for (let i = 0; i < s.parts; i++) {
        const amount = i === s.parts - 1 ? BigInt(s.amount) - part * BigInt(s.parts - 1) : part;
        if (amount > 0n) await books.pay(inv.address, shop.id, amount, { final: s.final[i], logIndex: i });
      }
      return;
    }
    case 'standalone': {
      const inv = await books.invoice(shop, '1');
      await books.pay(inv.address, shop.id, BigInt(s.amount), { asset: 'TRX_TRON' });
      return;
    }
    case 'payout': {
      // amount + the 1 USDT fee must fit the available balance, else the request is refused as it should be.
      const room = (await available('USDT_TRON')) - 1_000_000n;
      const amount = (room * BigInt(s.share)) / 100n;
      if (amount < 1n) return;
      const p = await books.payout(shop, formatAmount(amount, 6));
      if (s.end === 'rejected') await books.reject(p.id);
      else if (s.end !== 'pending') await books.settlePayout(p.id, s.end);
      return;
    }
    case 'credit':
      await books.credit(shop, formatAmount(BigInt(s.amount), 6));
      return;
    case 'debit': {
      const amount = ((await available('USDT_TRON')) * BigInt(s.share)) / 100n;
      if (amount > 0n) await books.debit(shop, formatAmount(amount, 6));
      return;
    }
  }
}

describe('the ledger report equation over random histories', () => {
  it('opening + Σ entries = closing in every period, periods chain, and the last closing is the balance', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(step, fc.constantFrom(0, 1, 250, 60_000, 86_400_000, 2 * 86_400_000)), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.array(fc.integer({ min: 0, max: 1_000 }), { minLength: 1, maxLength: 5 }),
        async (steps, cuts) => {
          const shop = await books.shop({ feePercent: '1.5' });
          const first = t.clock.now().getTime();
          for (const [s, gap] of steps) await apply(shop, s, gap);
          const last = t.clock.now().getTime();
          books.tick(1);
          // Period boundaries: before the history, cuts inside it (per mille of its span), after it.
          const inside = cuts.map((c) => first + Math.floor(((last - first) * c) / 1000));
          const bounds = [...new Set([first - 1, ...inside, last + 1])]
            .sort((a, b) => a - b)
            .map((ms) => new Date(ms).toISOString());
          const whole = JSON.parse(await report({ from: bounds[0]!, to: bounds.at(-1)!, merchantId: shop.id }));
          const seen = new Map<string, number[]>();
          const closings = new Map<string, string>();
          for (let i = 0; i + 1 < bounds.length; i++) {
            const body = JSON.parse(
              await report({ from: bounds[i]!, to: bounds[i + 1]!, merchantId: shop.id }, 'json', 2),
            );
            for (const a of body.accounts) {
              const sum = a.entries.reduce((s: bigint, e: any) => s + units(e.amount), 0n);
              expect(units(a.opening) + sum, `${a.asset} ${bounds[i]}..${bounds[i + 1]}`).toBe(units(a.closing));
              // The previous period's closing (0 before the account's first entry).
              expect(a.opening).toBe(closings.get(a.asset) ?? '0');
              closings.set(a.asset, a.closing);
              seen.set(a.asset, [...(seen.get(a.asset) ?? []), ...a.entries.map((e: any) => e.entry_id)]);
            }
          }
          for (const a of whole.accounts) {
            // Every entry of the account, once, in order, across the periods.
            expect(seen.get(a.asset)).toEqual(a.entries.map((e: any) => e.entry_id));
            expect(a.opening).toBe('0');
            const book = await balance(t.app.services.db, shop.id, a.asset);
            expect(units(a.closing)).toBe(book.balance);
            expect(closings.get(a.asset)).toBe(a.closing);
          }
          const ledgerAssets = await t.app.services.db
            .selectFrom('ledger_entries')
            .select('asset')
            .distinct()
            .where('merchant_id', '=', shop.id)
            .execute();
          expect(whole.accounts.map((a: any) => a.asset)).toEqual(ledgerAssets.map((r) => r.asset).sort());
        },
      ),
      { numRuns: 25 },
    );
  });
});

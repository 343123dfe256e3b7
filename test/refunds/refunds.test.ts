/**
 * Refunds against the devnet with the payout worker running: the owner refunds an invoice in the
 * cabinet, the customer gives an address on the claim link, the operator approves the payout, the
 * chain shows the transfer and the refund is sent, resolving the exception it cites; every refusal
 * changes nothing; races.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ManualClock } from '../../src/clock.js';
import type { Devnet } from '../../src/devnet/index.js';
import { creditMerchant } from '../../src/ledger/operator.js';
import { balance } from '../../src/ledger/service.js';
import { createOwner } from '../../src/owners/service.js';
import { approvePayout } from '../../src/payouts/operator.js';
import { expireRefunds, getRefund } from '../../src/refunds/service.js';
import { cabinetUrl } from '../../src/config.js';
import { writeTx } from '../../src/db/database.js';
import { dropOpen, findException, upsertOpen } from '../../src/exceptions/store.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { api, type ApiRequest } from '../helpers/http.js';
import { newInvoice } from '../invoices/fixture.js';
import { newAddress } from '../payouts/fixture.js';
import { ledgerProblems, startTestDevnet, successfulTransfersTo, workerAppOptions } from '../payouts/worker-fixture.js';

const PASSWORD = 'correct horse battery staple';
let devnet: Devnet;
let t: TestApp;
let hot: string;
const db = () => t.app.services.db;
const clock = () => t.clock as ManualClock;

beforeAll(async () => {
  devnet = await startTestDevnet();
  const w = await workerAppOptions(devnet);
  hot = w.hotAddress;
  t = await startTestApp(w.options);
  devnet.control.fund({ address: hot, asset: 'TRX_TRON', amount: 5_000_000_000n, mine: true });
  devnet.control.fund({ address: hot, asset: 'USDT_TRON', amount: 1_000_000_000n, mine: true });
});
afterAll(async () => {
  await t?.close();
  await devnet?.close();
});

/** An owner of these merchants, signed in: a cabinet request with its bearer token. */
async function ownerOf(email: string, merchantIds: string[]) {
  const base = t.app.cabinetUrl as string;
  const created = await createOwner(db(), t.clock, 'test', {
    email,
    merchantIds,
    cabinetUrl: cabinetUrl(t.app.config),
  });
  await api(base, '/cabinet/v1/account/setup', { body: { setup_token: created.setup_token, password: PASSWORD } });
  const r = await api(base, '/cabinet/v1/sessions', { body: { email, password: PASSWORD } });
  const token = r.body.token as string;
  return (path: string, req: ApiRequest = {}) =>
    api(base, path, { ...req, headers: { authorization: `Bearer ${token}`, ...req.headers } });
}

const pay = (path: string, req: ApiRequest = {}) => api(t.app.payUrl as string, path, req);

/**
 * A merchant with `balance` USDT and an invoice of 10 USDT that credited `credited`. The credit is
 * booked as the settlement books it (the invoice's amount_credited and a ledger credit), without a
 * chain payment: what is under test starts from a credited invoice.
 */
async function shopWithInvoice(credited: string, opening = '0') {
  const { merchant, key } = await t.merchant();
  const id = merchant.merchant_id;
  const r = await api(t.url, '/v1/invoices', {
    key,
    body: newInvoice(),
  });
  expect(r.status, r.text).toBe(201);
  const invoiceId = r.body.invoice_id as string;
  const units = BigInt(Math.round(Number(credited) * 1e6)).toString();
  await db()
    .updateTable('invoices')
    .set({ amount_credited: units, amount_received: units })
    .where('id', '=', invoiceId)
    .execute();
  const total = (Number(credited) + Number(opening)).toString();
  if (Number(total) > 0)
    await creditMerchant(db(), t.clock, 'test', t.app.services.catalog, id, {
      asset: 'USDT_TRON',
      amount: total,
      memo: 'paid',
    });
  return { id, invoiceId };
}

/** An open `overpaid` exception of the invoice, as the settlement records it. */
const openException = (m: string, invoiceId: string) =>
  writeTx(db(), (trx) =>
    upsertOpen(
      trx,
      t.clock,
      { kind: 'overpaid', merchantId: m, invoiceId, asset: 'USDT_TRON', decimals: 6 },
      1_000_000n,
    ),
  );

const refundsPath = (m: string, inv: string) => `/cabinet/v1/merchants/${m}/invoices/${inv}/refunds`;
const available = async (m: string) => (await balance(db(), m, 'USDT_TRON')).available;
const eventTypes = async (subject: string) =>
  (await db().selectFrom('events').select('type').where('subject_id', '=', subject).orderBy('seq').execute()).map(
    (e) => e.type,
  );

describe('refunds', () => {
  it('claim → payout approved → sent on chain → refund.sent, its exception resolved; refusals change nothing', async () => {
    const shop = await shopWithInvoice('10', '5');
    const exception = await openException(shop.id, shop.invoiceId);
    const owner = await ownerOf(`o-${Math.random()}@example.com`, [shop.id]);
    const before = await available(shop.id);

    const over = await owner(refundsPath(shop.id, shop.invoiceId), { body: { amount: '10.000001' } });
    expect(over.status).toBe(422);
    expect(over.body.error.code).toBe('refund_exceeds_received');
    const cited = await owner(refundsPath(shop.id, shop.invoiceId), {
      body: { amount: '1', exception_id: '00000000-0000-4000-8000-000000000000' },
    });
    expect(cited.status).toBe(400);
    expect(cited.body.error.details[0].path).toBe('body.exception_id');
    expect(await available(shop.id)).toBe(before);

    const made = await owner(refundsPath(shop.id, shop.invoiceId), {
      body: { amount: '4', reason: 'paid twice', exception_id: exception.id },
    });
    expect(made.status, made.text).toBe(201);
    const refund = made.body;
    expect(refund.exception_id).toBe(exception.id);
    const twice = await owner(refundsPath(shop.id, shop.invoiceId), {
      body: { amount: '1', exception_id: exception.id },
    });
    expect([twice.status, twice.body.error?.code]).toEqual([409, 'invalid_state']);
    // A cause that goes away (a fork) leaves an exception a live refund cites in place.
    await writeTx(db(), (trx) => dropOpen(trx, exception.id));
    expect((await findException(db(), exception.id))?.resolved_at).toBeNull();
    expect(refund).toMatchObject({ status: 'awaiting_address', amount: '4', asset: 'USDT_TRON', address: null });
    expect(refund.claim_url).toBe(`${t.app.payUrl}/pay/refund/${refund.refund_id}`);
    const fee = BigInt(Math.round(Number(refund.fee) * 1e6));
    expect(await available(shop.id)).toBe(before - 4_000_000n - fee);
    // What is left of the credit: 6.
    const left = await owner(refundsPath(shop.id, shop.invoiceId), { body: { amount: '6.000001' } });
    expect(left.body.error.code).toBe('refund_exceeds_received');

    const claim = `/pay/v1/refunds/${refund.refund_id}`;
    expect((await pay(claim)).body).toMatchObject({ amount: '4', asset: 'USDT_TRON', status: 'awaiting_address' });
    const bad = await pay(`${claim}/address`, { body: { address: 'Tnotanaddress' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe('body.address');
    const own = await pay(`${claim}/address`, { body: { address: hot } });
    expect([own.status, own.body.error?.code]).toEqual([422, 'refund_address_not_allowed']);

    const customer = newAddress();
    const given = await pay(`${claim}/address`, { body: { address: customer } });
    expect([given.status, given.body.status, given.body.address]).toEqual([201, 'requested', customer]);
    expect((await pay(`${claim}/address`, { body: { address: customer } })).status).toBe(200);
    const other = await pay(`${claim}/address`, { body: { address: newAddress() } });
    expect([other.status, other.body.error?.code]).toEqual([409, 'refund_address_already_set']);
    const late = await owner(`/cabinet/v1/merchants/${shop.id}/refunds/${refund.refund_id}/cancel`, { method: 'POST' });
    expect([late.status, late.body.error?.code]).toEqual([409, 'invalid_state']);
    expect(await available(shop.id)).toBe(before - 4_000_000n - fee);

    const read = await owner(`/cabinet/v1/merchants/${shop.id}/refunds/${refund.refund_id}`);
    const payout = await db()
      .selectFrom('payouts')
      .selectAll()
      .where('id', '=', read.body.payout_id)
      .executeTakeFirstOrThrow();
    expect([payout.reference, payout.status]).toEqual([`refund-${refund.refund_id}`, 'pending_review']);
    expect(JSON.parse(payout.review_reasons)).toContain('first_payout_to_address');
    await approvePayout(db(), t.clock, 'test', payout.id);
    await vi.waitFor(
      async () => {
        devnet.control.mine(1);
        expect((await owner(`/cabinet/v1/merchants/${shop.id}/refunds/${refund.refund_id}`)).body.status).toBe('sent');
      },
      { timeout: 15_000, interval: 50 },
    );
    expect(successfulTransfersTo(devnet, hot, customer).map((x) => x.amount)).toEqual([4_000_000n]);
    // The claim page shows the transaction that sent it (no explorer on the devnet).
    const sentTx = (
      await db().selectFrom('payouts').select('tx_hash').where('id', '=', payout.id).executeTakeFirstOrThrow()
    ).tx_hash;
    expect((await pay(claim)).body).toMatchObject({ status: 'sent', tx_hash: sentTx, explorer_url: null });
    expect(sentTx).toMatch(/^[0-9a-f]{64}$/);
    expect((await balance(db(), shop.id, 'USDT_TRON')).balance).toBe(15_000_000n - 4_000_000n - fee);
    expect(await eventTypes(refund.refund_id)).toEqual(['refund.created', 'refund.requested', 'refund.sent']);
    const resolved = await findException(db(), exception.id);
    expect([resolved?.refund_id, resolved?.resolved_at === null]).toEqual([refund.refund_id, false]);
    const list = await owner(`/cabinet/v1/merchants/${shop.id}/refunds?status=sent`);
    expect(list.body.data.map((r: { refund_id: string }) => r.refund_id)).toEqual([refund.refund_id]);
    expect(await ledgerProblems(db())).toEqual([]);
  });

  it('cancel and expiry release the reservation and end the claim; another account answers 404', async () => {
    const shop = await shopWithInvoice('10');
    const stranger = await shopWithInvoice('10');
    const owner = await ownerOf(`o-${Math.random()}@example.com`, [shop.id]);
    const before = await available(shop.id);
    const foreign = await owner(refundsPath(shop.id, stranger.invoiceId), { body: { amount: '1' } });
    expect([foreign.status, foreign.body.error?.code]).toEqual([404, 'invoice_not_found']);
    const theirs = await owner(refundsPath(stranger.id, stranger.invoiceId), { body: { amount: '1' } });
    expect(theirs.status).toBe(404);

    const a = (await owner(refundsPath(shop.id, shop.invoiceId), { body: { amount: '2' } })).body;
    const b = (await owner(refundsPath(shop.id, shop.invoiceId), { body: { amount: '3' } })).body;
    const canceled = await owner(`/cabinet/v1/merchants/${shop.id}/refunds/${a.refund_id}/cancel`, { method: 'POST' });
    expect(canceled.body.status).toBe('canceled');
    const after = await pay(`/pay/v1/refunds/${a.refund_id}/address`, { body: { address: newAddress() } });
    expect([after.status, after.body.error?.code]).toEqual([409, 'refund_not_claimable']);
    const missing = await owner(`/cabinet/v1/merchants/${shop.id}/refunds/00000000-0000-4000-8000-000000000000`);
    expect([missing.status, missing.body.error?.code]).toEqual([404, 'refund_not_found']);

    clock().advance(31 * 86_400_000);
    expect(await expireRefunds(db(), t.clock)).toBeGreaterThanOrEqual(1);
    expect((await getRefund(db(), b.refund_id, shop.id)).status).toBe('expired');
    expect(await available(shop.id)).toBe(before);
    expect(await eventTypes(a.refund_id)).toEqual(['refund.created', 'refund.canceled']);
    expect(await eventTypes(b.refund_id)).toEqual(['refund.created', 'refund.expired']);
  });

  it('two refunds racing for the last unit of the credit, and for the balance: exactly one each time', async () => {
    const shop = await shopWithInvoice('10');
    const owner = await ownerOf(`o-${Math.random()}@example.com`, [shop.id]);
    const path = refundsPath(shop.id, shop.invoiceId);
    const credit = await Promise.all([1, 2].map(() => owner(path, { body: { amount: '6' } })));
    expect(credit.map((r) => r.status).sort()).toEqual([201, 422]);
    expect(credit.find((r) => r.status === 422)!.body.error.code).toBe('refund_exceeds_received');

    // A balance of 10 and a credit of 10: two refunds of 5.5 each fit the credit (11 > 10, so
    // one is refused there) — instead two invoices of one merchant compete for its balance.
    const rich = await shopWithInvoice('10');
    const second = await api(t.url, '/v1/invoices', { key: await t.key(rich.id), body: newInvoice() });
    await db()
      .updateTable('invoices')
      .set({ amount_credited: '10000000', amount_received: '10000000' })
      .where('id', '=', second.body.invoice_id)
      .execute();
    const o2 = await ownerOf(`o-${Math.random()}@example.com`, [rich.id]);
    const racing = await Promise.all(
      [rich.invoiceId, second.body.invoice_id as string].map((inv) =>
        o2(refundsPath(rich.id, inv), { body: { amount: '6' } }),
      ),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([201, 422]);
    expect(racing.find((r) => r.status === 422)!.body.error.code).toBe('insufficient_balance');
    expect(await ledgerProblems(db())).toEqual([]);
  });

  it("a merchant's own payout holding the refund's reference: the claim answers 409 reference_conflict, nothing changes", async () => {
    const shop = await shopWithInvoice('10', '5');
    const owner = await ownerOf(`o-${Math.random()}@example.com`, [shop.id]);
    const refund = (await owner(refundsPath(shop.id, shop.invoiceId), { body: { amount: '1' } })).body;
    const to = newAddress();
    await addToWhitelist(db(), t.clock, 'test', t.app.services.catalog, shop.id, {
      asset: 'USDT_TRON',
      address: to,
      delay: '0',
    });
    const own = await api(t.url, '/v1/payouts', {
      key: await t.key(shop.id),
      body: { reference: `refund-${refund.refund_id}`, asset: 'USDT_TRON', to_address: to, amount: '1' },
    });
    expect(own.status, own.text).toBe(202);
    const before = await available(shop.id);
    const claim = await pay(`/pay/v1/refunds/${refund.refund_id}/address`, { body: { address: newAddress() } });
    expect([claim.status, claim.body.error?.code]).toEqual([409, 'reference_conflict']);
    expect(await getRefund(db(), refund.refund_id, shop.id)).toMatchObject({
      status: 'awaiting_address',
      address: null,
    });
    expect(await available(shop.id)).toBe(before);
  });
});

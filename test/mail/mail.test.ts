/**
 * Mail against a real SMTP server in process (smtp-server on loopback), with the devnet and the
 * chain watcher: a page invoice's customer gets the receipt in the language of the page and the
 * claim link of a refund; owners get a mail for a new exception unless they turned it off; a mail
 * server that is down delays the mail, and once it is back the mail arrives exactly once; the mail
 * itself never stands in the way of the payment. `paygate mail test` sends one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cabinetUrl } from '../../src/config.js';
import { MailWorker } from '../../src/mail/worker.js';
import { smtpTransport } from '../../src/mail/transport.js';
import { requireMerchant } from '../../src/merchants/service.js';
import { createOwner } from '../../src/owners/service.js';
import { pageDeps } from '../../src/pay/server.js';
import { createPageInvoice } from '../../src/pay/service.js';
import { runCli } from '../helpers/cli.js';
import { api, type ApiRequest } from '../helpers/http.js';
import { newAddress } from '../payouts/fixture.js';
import { startChainApp, type ChainTestApp } from '../watcher/fixture.js';
import { silent } from '../webhooks/fixture.js';
import { startSmtp, type TestSmtp } from './smtp.js';

const PASSWORD = 'correct horse battery staple';
const FROM = 'Paygate <billing@shop.test>';
let smtp: TestSmtp;
let t: ChainTestApp;
let shop: { id: string; key: string };

beforeAll(async () => {
  smtp = await startSmtp();
  t = await startChainApp({ env: { SMTP_URL: smtp.url, MAIL_FROM: FROM } });
  shop = await t.shop({ confirmations: 3 });
});
afterAll(async () => {
  await t?.close();
  await smtp?.stop();
});

/** The mail worker as serve runs it, under this app's lease; a test runs its rounds. */
function mailWorker(): MailWorker {
  const lease = t.app.workers!.lease;
  const config = t.app.config.mail!;
  return new MailWorker(lease.fenced(t.app.services.db), t.clock, lease, smtpTransport(config), silent, {
    random: () => 0.5,
  });
}

async function ownerOf(email: string) {
  const base = t.app.cabinetUrl as string;
  const created = await createOwner(t.app.services.db, t.clock, 'test', {
    email,
    merchantIds: [shop.id],
    cabinetUrl: cabinetUrl(t.app.config),
  });
  await api(base, '/cabinet/v1/account/setup', { body: { setup_token: created.setup_token, password: PASSWORD } });
  const r = await api(base, '/cabinet/v1/sessions', { body: { email, password: PASSWORD } });
  const token = r.body.token as string;
  return (path: string, req: ApiRequest = {}) =>
    api(base, path, { ...req, headers: { authorization: `Bearer ${token}`, ...req.headers } });
}

/** A page invoice of 12.5 whose customer picked USDT and left an email in `language`. */
async function pageInvoice(orderId: string, email: string, language: string) {
  const s = t.app.services;
  const { invoice } = await createPageInvoice(
    pageDeps(s),
    await requireMerchant(s.db, shop.id),
    { order_id: orderId, price: '12.5', expires_in: 3600 },
    'test',
  );
  const pay = t.app.payUrl as string;
  const chosen = await api(pay, `/pay/v1/invoices/${invoice.invoice_id}/asset`, { body: { asset: 'USDT_TRON' } });
  expect(chosen.status, chosen.text).toBe(201);
  const left = await api(pay, `/pay/v1/invoices/${invoice.invoice_id}/email`, { body: { email, language } });
  expect(left.status, left.text).toBe(204);
  return { id: invoice.invoice_id, address: chosen.body.address as string };
}

describe('mail', () => {
  let invoiceId: string;
  let owner: Awaited<ReturnType<typeof ownerOf>>;

  it('sends the customer the receipt in their language and tells the owners who want it of the exception', async () => {
    owner = await ownerOf('alice@shop.test');
    const quiet = await ownerOf('bob@shop.test');
    expect((await owner('/cabinet/v1/account/notifications')).body).toEqual({
      exceptions: true,
      payouts_in_review: true,
    });
    const off = await quiet('/cabinet/v1/account/notifications', {
      method: 'PUT',
      body: { exceptions: false, payouts_in_review: true },
    });
    expect(off.status, off.text).toBe(200);
    expect((await quiet('/cabinet/v1/account/notifications')).body).toEqual({
      exceptions: false,
      payouts_in_review: true,
    });
    const bad = await quiet('/cabinet/v1/account/notifications', { method: 'PUT', body: { exceptions: 'no' } });
    expect(bad.status).toBe(400);

    const inv = await pageInvoice('mail-1', 'ana@example.test', 'es');
    invoiceId = inv.id;
    // 13 for 12.5: confirmed and overpaid, an exception for the owners.
    await t.pay(inv.address, '13');
    await t.mine(3);
    expect((await t.invoice(shop.key, inv.id)).status).toBe('confirmed');
    expect(smtp.received).toHaveLength(0);

    while ((await mailWorker().sendDue()) > 0);
    const [receipt, ...more] = smtp.to('ana@example.test');
    expect(more).toHaveLength(0);
    expect(receipt!.from).toBe('billing@shop.test');
    expect(receipt!.subject).toBe('Su recibo de Chain shop');
    expect(receipt!.text).toContain('Chain shop recibió su pago.');
    expect(receipt!.text).toContain('Pedido: mail-1');
    expect(receipt!.text).toContain('Importe: 13 USDT_TRON');
    expect(receipt!.html).toContain('<strong>mail-1</strong>');

    const [notice, ...again] = smtp.to('alice@shop.test');
    expect(again).toHaveLength(0);
    expect(notice!.subject).toBe('Chain shop: an invoice was overpaid');
    expect(notice!.text).toContain('Amount: 0.5 USDT_TRON');
    expect(smtp.to('bob@shop.test')).toHaveLength(0);
  });

  it('sends the claim link of a refund to the customer of the invoice', async () => {
    // Settled: the credit is the merchant's to refund.
    await t.mine(17);
    const r = await owner(`/cabinet/v1/merchants/${shop.id}/invoices/${invoiceId}/refunds`, {
      body: { amount: '0.5' },
    });
    expect(r.status, r.text).toBe(201);
    while ((await mailWorker().sendDue()) > 0);
    const claims = smtp.to('ana@example.test').filter((m) => m.subject === 'Su reembolso de Chain shop');
    expect(claims).toHaveLength(1);
    expect(claims[0]!.text).toContain('Chain shop le reembolsa 0.5 USDT_TRON.');
    expect(claims[0]!.text).toContain(r.body.claim_url as string);
    expect(claims[0]!.html).toContain(`href="${r.body.claim_url as string}"`);

    // The customer's address makes a payout to a new address: it waits for review, and the owners
    // who want that mail hear of it (alice turned it off, bob did not).
    const offPayouts = await owner('/cabinet/v1/account/notifications', {
      method: 'PUT',
      body: { exceptions: true, payouts_in_review: false },
    });
    expect(offPayouts.status, offPayouts.text).toBe(200);
    const to = newAddress();
    const claimed = await api(t.app.payUrl as string, `/pay/v1/refunds/${r.body.refund_id as string}/address`, {
      body: { address: to },
    });
    expect(claimed.status, claimed.text).toBe(201);
    while ((await mailWorker().sendDue()) > 0);
    const review = smtp.to('bob@shop.test');
    expect(review).toHaveLength(1);
    expect(review[0]!.subject).toBe('Chain shop: a payout waits for review');
    expect(review[0]!.text).toContain(`To: ${to}`);
    expect(smtp.to('alice@shop.test').filter((m) => m.subject.includes('payout'))).toHaveLength(0);
  });

  it('keeps the mail while the mail server is down and sends it once when it is back', async () => {
    await smtp.stop();
    const inv = await pageInvoice('mail-2', 'joao@example.test', 'pt-BR');
    await t.pay(inv.address, '12.5');
    await t.mine(3);
    // The payment goes on without the mail server.
    expect((await t.invoice(shop.key, inv.id)).status).toBe('confirmed');
    const worker = mailWorker();
    expect(await worker.sendDue()).toBe(1);
    const row = await t.app.services.db
      .selectFrom('mail_outbox')
      .selectAll()
      .where('recipient', '=', 'joao@example.test')
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'pending', attempts: 1 });
    // Not due before its backoff.
    expect(await worker.sendDue()).toBe(0);

    await smtp.start();
    t.clock.advance(60_000);
    expect(await worker.sendDue()).toBe(1);
    t.clock.advance(3_600_000);
    expect(await worker.sendDue()).toBe(0);
    const got = smtp.to('joao@example.test');
    expect(got).toHaveLength(1);
    expect(got[0]!.subject).toBe('Seu recibo de Chain shop');
  });

  it('paygate mail test sends one mail', async () => {
    const env = { DATABASE_URL: t.app.config.databaseUrl, SMTP_URL: smtp.url, MAIL_FROM: FROM };
    const r = await runCli(['mail', 'test', 'ops@example.test', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toEqual({ to: 'ops@example.test', from: FROM, sent: true });
    const got = smtp.to('ops@example.test');
    expect(got).toHaveLength(1);
    expect(got[0]!.subject).toBe('paygate test mail');

    const bad = await runCli(['mail', 'test', 'not-an-address', '--json'], env);
    expect(bad.code).toBe(1);
    expect(bad.json.error.code).toBe('validation_failed');
  });
});

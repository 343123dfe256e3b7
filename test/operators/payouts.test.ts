/**
 * Payouts, halts and webhook deliveries through the console over real HTTP: the review queue (a
 * page at a time), approve, reject and cancel with their refusals, halts seen by /v1, the
 * deliveries of the events those changes emit (the real dispatcher, a real receiver), resend.
 * Every answer is checked against the served OpenAPI document.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/clock.js';
import { WorkerLease } from '../../src/runtime/lease.js';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { startConsoleApp, type ConsoleTestApp } from '../helpers/console.js';
import { api } from '../helpers/http.js';
import { newAddress, newPayout } from '../payouts/fixture.js';
import { silent, startReceiver, type Receiver } from '../webhooks/fixture.js';

let t: ConsoleTestApp;
let receiver: Receiver;
let merchant: string;
let key: string;
let address: string;

const expectError = (r: { status: number; body: any; text: string }, status: number, code: string) => {
  expect(r.status, r.text).toBe(status);
  expect(r.body.error.code, r.text).toBe(code);
};
/** A payout requested on /v1 by the merchant: in review (the default auto-approve limit is 0). */
const requestPayout = async (amount = '10') => {
  (t.clock as ManualClock).advance(1000);
  const r = await api(t.url, '/v1/payouts', { key, body: newPayout(address, { amount }) });
  expect(r.status, r.text).toBe(202);
  return r.body.payout_id as string;
};

beforeAll(async () => {
  t = await startConsoleApp({ workers: false });
  receiver = await startReceiver(() => ({ status: 204 }));
  merchant = (await t.call('/admin/v1/merchants', { body: { name: 'Payouts' } })).body.merchant_id;
  await t.call(`/admin/v1/merchants/${merchant}/approve`, { method: 'POST' });
  key = (await t.call(`/admin/v1/merchants/${merchant}/keys`, { method: 'POST' })).body.api_key;
  address = newAddress();
  await t.call(`/admin/v1/merchants/${merchant}/whitelist`, { body: { asset: 'USDT_TRON', address, delay: '0' } });
  await t.call(`/admin/v1/merchants/${merchant}/ledger-entries`, {
    body: { kind: 'credit', asset: 'USDT_TRON', amount: '1000', memo: 'funding' },
  });
  await t.call(`/admin/v1/merchants/${merchant}/webhook`, {
    method: 'PUT',
    body: { url: receiver.url, allow_private: true },
  });
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

describe('payouts', () => {
  it('lists the review queue newest first, a page at a time, filtered by status and merchant', async () => {
    const ids = [await requestPayout(), await requestPayout(), await requestPayout()];
    const first = await t.call(`/admin/v1/payouts?status=pending_review&merchant_id=${merchant}&limit=2`);
    expect(first.status, first.text).toBe(200);
    expect(first.body.data.map((p: { payout_id: string }) => p.payout_id)).toEqual([ids[2], ids[1]]);
    expect(first.body.data[0]).toMatchObject({ merchant_id: merchant, status: 'pending_review', hold_reason: null });
    const rest = await t.call(`/admin/v1/payouts?status=pending_review&limit=2&cursor=${first.body.next_cursor}`);
    expect(rest.body.data.map((p: { payout_id: string }) => p.payout_id)).toEqual([ids[0]]);
    expect(rest.body.next_cursor).toBeNull();
    expectError(await t.call('/admin/v1/payouts?status=lost'), 400, 'validation_failed');
    expectError(await t.call(`/admin/v1/payouts?merchant_id=${randomUUID()}`), 404, 'merchant_not_found');
  });

  it('shows one payout; an unknown one is payout_not_found', async () => {
    const id = await requestPayout('12.5');
    const r = await t.call(`/admin/v1/payouts/${id.toUpperCase()}`);
    expect(r.body).toMatchObject({ payout_id: id, amount: '12.5', status: 'pending_review' });
    expectError(await t.call(`/admin/v1/payouts/${randomUUID()}`), 404, 'payout_not_found');
  });

  it('approves, rejects and cancels; a payout in the wrong state is 409 invalid_state', async () => {
    const a = await requestPayout();
    const approved = await t.call(`/admin/v1/payouts/${a}/approve`, { method: 'POST' });
    expect(approved.body).toMatchObject({ status: 'approved', reviewed_by: t.tokenId });
    expectError(await t.call(`/admin/v1/payouts/${a}/approve`, { method: 'POST' }), 409, 'invalid_state');
    expectError(await t.call(`/admin/v1/payouts/${a}/reject`, { body: { reason: 'late' } }), 409, 'invalid_state');
    const cancelled = await t.call(`/admin/v1/payouts/${a}/cancel`, { body: { reason: 'merchant asked' } });
    expect(cancelled.body).toMatchObject({ status: 'rejected', reject_reason: 'merchant asked' });

    const b = await requestPayout();
    const noReason = await t.call(`/admin/v1/payouts/${b}/reject`, { body: {} });
    expectError(noReason, 400, 'validation_failed');
    expect(noReason.body.error.details).toEqual([{ path: 'body.reason', message: 'is required' }]);
    const rejected = await t.call(`/admin/v1/payouts/${b}/reject`, { body: { reason: 'flagged' } });
    expect(rejected.body).toMatchObject({ status: 'rejected', reject_reason: 'flagged' });
    for (const action of ['approve', 'reject', 'cancel'])
      expectError(
        await t.call(`/admin/v1/payouts/${randomUUID()}/${action}`, {
          body: action === 'approve' ? {} : { reason: 'x' },
        }),
        404,
        'payout_not_found',
      );
  });

  it('halts new payout requests of an asset (seen by /v1 as 503 payouts_halted) and resumes them', async () => {
    const halted = await t.call('/admin/v1/payouts/halt', { body: { asset: 'USDT_TRON', reason: 'drill' } });
    expect(halted.status, halted.text).toBe(200);
    expect(halted.body.halts).toEqual([
      expect.objectContaining({
        scope: 'USDT_TRON',
        requests_halted: true,
        worker_halted: false,
        updated_by: t.tokenId,
      }),
    ]);
    const refused = await api(t.url, '/v1/payouts', { key, body: newPayout(address) });
    expectError(refused, 503, 'payouts_halted');
    const resumed = await t.call('/admin/v1/payouts/resume', { body: { asset: 'USDT_TRON' } });
    expect(resumed.body.halts).toEqual([]);
    expect((await api(t.url, '/v1/payouts', { key, body: newPayout(address) })).status).toBe(202);
    // Without a body: every asset, both brakes with worker.
    const all = await t.call('/admin/v1/payouts/halt', { method: 'POST' });
    expect(all.body.halts).toEqual([expect.objectContaining({ scope: '*', requests_halted: true })]);
    await t.call('/admin/v1/payouts/resume', { body: { worker: true } });
    expectError(await t.call('/admin/v1/payouts/halt', { body: { asset: 'NOPE_TRON' } }), 404, 'asset_not_found');
  });
});

describe('webhook deliveries', () => {
  it('lists the deliveries the changes emitted, shows attempts, resends a failed one', async () => {
    const clock = t.clock as ManualClock;
    const lease = new WorkerLease(t.app.services.db, clock, { ttlMs: 3_650 * 86_400_000 });
    await lease.acquireOrRenew();
    const dispatcher = new WebhookDispatcher(t.app.services.db, clock, lease, silent, { random: () => 0.5 });
    receiver.answer = () => ({ status: 422, body: 'no such payout' });
    // One delivery per merchant lane a round, in order: as many rounds as there are.
    while ((await dispatcher.dispatchDue()) > 0);
    receiver.answer = () => ({ status: 204 });

    const failed = await t.call(`/admin/v1/deliveries?merchant_id=${merchant}&status=failed&limit=2`);
    expect(failed.status, failed.text).toBe(200);
    expect(failed.body.data).toHaveLength(2);
    expect(failed.body.next_cursor).toEqual(expect.any(String));
    const next = await t.call(
      `/admin/v1/deliveries?merchant_id=${merchant}&status=failed&limit=2&cursor=${failed.body.next_cursor}`,
    );
    const firstIds = failed.body.data.map((d: { delivery_id: string }) => d.delivery_id);
    for (const d of next.body.data) expect(firstIds).not.toContain(d.delivery_id);

    const id = failed.body.data[0].delivery_id as string;
    const shown = await t.call(`/admin/v1/deliveries/${id}`);
    expect(shown.body).toMatchObject({ delivery_id: id, status: 'failed', merchant_id: merchant });
    expect(shown.body.attempts_log).toEqual([
      expect.objectContaining({ attempt: 1, status_code: 422, response_excerpt: 'no such payout' }),
    ]);
    const byEvent = await t.call(`/admin/v1/deliveries/${shown.body.event_id}`);
    expect(byEvent.body.delivery_id).toBe(id);

    const resent = await t.call(`/admin/v1/deliveries/${id}/resend`, { method: 'POST' });
    expect(resent.body).toMatchObject({ delivery_id: id, status: 'pending' });
    expectError(await t.call(`/admin/v1/deliveries/${id}/resend`, { method: 'POST' }), 409, 'delivery_not_failed');
    while ((await dispatcher.dispatchDue()) > 0);
    expect((await t.call(`/admin/v1/deliveries/${id}`)).body).toMatchObject({ status: 'delivered', attempts: 2 });
    expectError(await t.call('/admin/v1/deliveries/dlv_000000000000000000000000'), 404, 'delivery_not_found');
    expectError(await t.call('/admin/v1/deliveries/nope/resend', { method: 'POST' }), 404, 'delivery_not_found');
    expectError(await t.call(`/admin/v1/deliveries?merchant_id=${randomUUID()}`), 404, 'merchant_not_found');
  });

  it('audits the payout decisions, halts and resends under the token id', async () => {
    const rows = await t.app.services.db
      .selectFrom('audit_log')
      .select('action')
      .distinct()
      .where('actor', '=', t.tokenId)
      .execute();
    expect(rows.map((r) => r.action)).toEqual(
      expect.arrayContaining([
        'payout.approve',
        'payout.reject',
        'payout.cancel',
        'payout.halt',
        'payout.resume',
        'webhook.resend',
      ]),
    );
  });
});

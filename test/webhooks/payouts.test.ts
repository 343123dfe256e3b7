/** Payout events from the real flows (POST /v1/payouts, the operator's review) reach the receiver, verified, in order. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { ManualClock } from '../../src/clock.js';
import { approvePayout, rejectPayout } from '../../src/payouts/operator.js';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { setEndpoint } from '../../src/webhooks/endpoints.js';
import { api } from '../helpers/http.js';
import { newAddress, newPayout, startPayoutApp, type PayoutTestApp } from '../payouts/fixture.js';
import { silent, startReceiver, type Receiver } from './fixture.js';

let t: PayoutTestApp;
let r: Receiver;
beforeAll(async () => {
  t = await startPayoutApp({ clock: new ManualClock(new Date()) });
  r = await startReceiver();
});
afterAll(async () => {
  await r.close();
  await t.close();
});

describe('payout events', () => {
  it('payout.pending_review, then payout.approved or payout.rejected, with the Payout as the API shows it', async () => {
    const { merchant, key } = await t.merchant();
    const id = merchant.merchant_id;
    const { secret } = await setEndpoint(t.app.services.db, t.clock, 'test', id, { url: r.url, allowPrivate: true });
    const to = newAddress();
    await t.fund(id, '100');
    await t.allow(id, to);
    const a = (await api(t.url, '/v1/payouts', { key, body: newPayout(to, { amount: '10' }) })).body;
    const b = (await api(t.url, '/v1/payouts', { key, body: newPayout(to, { amount: '20' }) })).body;
    expect([a.status, b.status]).toEqual(['pending_review', 'pending_review']);
    await approvePayout(t.app.services.db, t.clock, 'cli:ops', a.payout_id);
    await rejectPayout(t.app.services.db, t.clock, 'cli:ops', b.payout_id, 'unknown recipient');

    const lease = { grant: 'test#1', held: () => true, assertHeld: async () => {} };
    const d = new WebhookDispatcher(t.app.services.db, t.clock, lease, silent);
    while ((await d.dispatchDue()) > 0);
    const got = r.accepted().map(
      (x) =>
        new Webhook(secret as string).verify(x.body, x.headers as Record<string, string>) as {
          type: string;
          data: { payout_id: string };
        },
    );
    expect(got.map((e) => [e.type, e.data.payout_id])).toEqual([
      ['payout.pending_review', a.payout_id],
      ['payout.pending_review', b.payout_id],
      ['payout.approved', a.payout_id],
      ['payout.rejected', b.payout_id],
    ]);
    const shown = (await api(t.url, `/v1/payouts/${b.payout_id}`, { key })).body;
    expect(got[3]!.data).toEqual(shown);
  });
});

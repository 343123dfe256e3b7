/**
 * Without SMTP_URL and MAIL_FROM there is no mail: nothing is queued (so configuring mail later
 * sends nothing from before), `serve` runs no mail worker, the owners' choice is still kept, and
 * `paygate mail test` says what is missing. A process's mail setting is its environment's, so this
 * file builds its app without mail apart from the others.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cabinetUrl } from '../../src/config.js';
import { writeTx } from '../../src/db/database.js';
import { upsertOpen } from '../../src/exceptions/store.js';
import { mailWorkers } from '../../src/mail/worker.js';
import { createOwner } from '../../src/owners/service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { api } from '../helpers/http.js';

const PASSWORD = 'correct horse battery staple';
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

describe('without SMTP', () => {
  it('queues nothing, runs no mail worker, keeps the choice, and mail test names what is missing', async () => {
    const db = t.app.services.db;
    const { merchant } = await t.merchant();
    const email = 'carol@shop.test';
    const created = await createOwner(db, t.clock, 'test', {
      email,
      merchantIds: [merchant.merchant_id],
      cabinetUrl: cabinetUrl(t.app.config),
    });
    const base = t.app.cabinetUrl as string;
    await api(base, '/cabinet/v1/account/setup', { body: { setup_token: created.setup_token, password: PASSWORD } });
    const token = (await api(base, '/cabinet/v1/sessions', { body: { email, password: PASSWORD } })).body.token;
    const set = await api(base, '/cabinet/v1/account/notifications', {
      method: 'PUT',
      body: { exceptions: true, payouts_in_review: false },
      headers: { authorization: `Bearer ${token as string}` },
    });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toEqual({ exceptions: true, payouts_in_review: false });

    // A new exception for an owner who wants its mail: none is queued without SMTP.
    await writeTx(db, (trx) =>
      upsertOpen(
        trx,
        t.clock,
        {
          kind: 'foreign_asset',
          merchantId: merchant.merchant_id,
          depositId: 'a-deposit',
          asset: 'USDT_TRON',
          decimals: 6,
        },
        500_000n,
      ),
    );
    const queued = await db.selectFrom('mail_outbox').selectAll().execute();
    expect(queued).toEqual([]);
    expect(mailWorkers(t.app.services, t.app.workers!.lease)).toEqual([]);

    const r = await runCli(['mail', 'test', 'ops@example.test', '--json'], { DATABASE_URL: t.app.config.databaseUrl });
    expect(r.code).toBe(1);
    expect(r.json.error.code).toBe('invalid_argument');
    expect(r.json.error.message).toContain('SMTP_URL');
  });
});

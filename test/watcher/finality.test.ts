/**
 * Finality is never contradicted silently. The devnet replaces blocks below its solid height
 * (`POST /devnet/fork {"beyond_solid": true}`), among them the block of a payment already final
 * and credited: the watcher stops where it is (no rewind, no stored block forgotten, nothing
 * credited undone or credited again), `/readyz` answers 503 with the reason, a metric says so and
 * `paygate watcher status` shows it; `paygate watcher resume` lets it follow the node's chain.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readCursor } from '../../src/watcher/store.js';
import { runCli } from '../helpers/cli.js';
import { startChainApp, type ChainTestApp } from './fixture.js';

let t: ChainTestApp;
let shop: { id: string; key: string };
let env: Record<string, string>;

beforeAll(async () => {
  t = await startChainApp();
  shop = await t.shop({ feePercent: '1' });
  env = { DATABASE_URL: t.app.config.databaseUrl, TRON_NETWORK: 'devnet' };
  await t.mine(5);
});
afterAll(() => t.close());

const db = () => t.app.services.db;
const scanned = () => db().selectFrom('scanned_blocks').select(['number', 'hash']).orderBy('number').execute();
const depositsOf = (invoiceId: string) =>
  db()
    .selectFrom('deposits')
    .select(['tx_hash', 'block_hash', 'status', 'final', 'credited_amount'])
    .where('invoice_id', '=', invoiceId)
    .execute();
const readyz = async () => {
  const r = await fetch(`${t.app.adminUrl}/readyz`);
  return { status: r.status, body: (await r.json()) as any };
};
const metric = async () =>
  /^paygate_watcher_finality_stopped (\d)/m.exec(await (await fetch(`${t.app.adminUrl}/metrics`)).text())?.[1];

describe('a node that contradicts finality', () => {
  it('stops the watcher where it is, with the reason in /readyz, a metric and watcher status; watcher resume follows the node, nothing credited twice', async () => {
    const inv = await t.create(shop.key, { amount: '10' });
    const txid = await t.pay(inv.address, '10');
    await t.mine(25);
    expect(await t.invoice(shop.key, inv.invoice_id)).toMatchObject({ status: 'settled', amount_credited: '9.9' });
    const balance = await t.balanceOf(shop.id);
    const cursor = await readCursor(db());
    const blocks = await scanned();
    const deposits = await depositsOf(inv.invoice_id);
    expect(deposits).toMatchObject([{ tx_hash: txid, final: 1, credited_amount: '9900000' }]);
    const paidIn = (
      await db().selectFrom('deposits').select('block_number').where('tx_hash', '=', txid).executeTakeFirstOrThrow()
    ).block_number;
    expect(paidIn).toBeLessThanOrEqual(cursor!.solid_number);
    expect(await metric()).toBe('0');

    const head = t.devnet.control.info().head.number;
    const fork = await fetch(`${t.devnet.url}/devnet/fork`, {
      method: 'POST',
      body: JSON.stringify({ depth: head - paidIn + 1, beyond_solid: true }),
    });
    expect(fork.status).toBe(200);
    t.app.workers?.wake('chain-watcher');

    await vi.waitFor(
      async () => expect((await runCli(['watcher', 'status', '--json'], env)).json?.state).toBe('stopped'),
      { timeout: 15_000, interval: 50 },
    );
    const status = (await runCli(['watcher', 'status', '--json'], env)).json;
    expect(status.stop).toMatchObject({
      final_height: cursor!.solid_number,
      resumed_at: null,
      reason: expect.stringContaining('contradicts finality'),
    });
    expect(status.stop.height).toBeLessThanOrEqual(cursor!.solid_number);
    const ready = await readyz();
    expect(ready.status).toBe(503);
    expect(ready.body.checks.finality).toMatchObject({
      ok: false,
      reason: expect.stringContaining('contradicts finality'),
    });
    expect(await metric()).toBe('1');
    // Where it stopped: the cursor, the blocks kept to find forks, the final and credited deposit.
    expect(await readCursor(db())).toEqual(cursor);
    expect(await scanned()).toEqual(blocks);
    expect(await depositsOf(inv.invoice_id)).toEqual(deposits);
    expect(await t.balanceOf(shop.id)).toBe(balance);

    const resumed = await runCli(['watcher', 'resume', '--json'], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.json).toMatchObject({ state: 'resuming', stop: { resumed_by: expect.stringMatching(/^cli:/) } });
    expect((await readyz()).body.checks.finality).toEqual({ ok: true });
    await t.mine(1);
    expect((await runCli(['watcher', 'status', '--json'], env)).json).toMatchObject({ state: 'running', stop: null });
    // The payment is still the one deposit, final, credited once.
    expect(await depositsOf(inv.invoice_id)).toMatchObject([{ tx_hash: txid, final: 1, credited_amount: '9900000' }]);
    expect(await t.balanceOf(shop.id)).toBe(balance);
    expect(await t.invoice(shop.key, inv.invoice_id)).toMatchObject({ status: 'settled', amount_credited: '9.9' });
    await t.check(true);

    const again = await runCli(['watcher', 'resume', '--json'], env);
    expect(again.code).toBe(1);
    expect(again.json.error).toMatchObject({ code: 'invalid_state', message: expect.stringContaining('not stopped') });
  });

  it("stops too when the node's solid height has moved past the final one before the watcher looks", async () => {
    const inv = await t.create(shop.key, { amount: '4' });
    const txid = await t.pay(inv.address, '4');
    await t.mine(25);
    const paidIn = (
      await db().selectFrom('deposits').select('block_number').where('tx_hash', '=', txid).executeTakeFirstOrThrow()
    ).block_number;
    const cursor = await readCursor(db());
    const balance = await t.balanceOf(shop.id);
    t.devnet.control.fork(t.devnet.control.info().head.number - paidIn + 1, 'reinclude', true);
    // Three more blocks before the watcher's next look: the node's solid block is above the final height.
    for (let i = 0; i < 3; i++) {
      t.clock.advance(3_000);
      t.devnet.control.mine(1);
    }
    expect(t.devnet.control.info().solid.number).toBeGreaterThan(cursor!.solid_number);
    t.app.workers?.wake('chain-watcher');
    await vi.waitFor(
      async () => expect((await runCli(['watcher', 'status', '--json'], env)).json?.state).toBe('stopped'),
      { timeout: 15_000, interval: 50 },
    );
    expect(await readCursor(db())).toEqual(cursor);
    expect((await runCli(['watcher', 'resume', '--json'], env)).code).toBe(0);
    await t.mine(1);
    expect(await depositsOf(inv.invoice_id)).toMatchObject([{ tx_hash: txid, final: 1, credited_amount: '3960000' }]);
    expect(await t.balanceOf(shop.id)).toBe(balance);
    await t.check(true);
  });
});

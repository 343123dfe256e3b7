/**
 * The load of the soak: customers paying invoices and permanent addresses on the devnet, merchants
 * asking for payouts (approved, rejected or cancelled by the operator), and API reads and bad
 * requests. Each loop has its own seeded stream, so its sequence of choices replays with the seed.
 */
import { systemClock } from '../../../src/clock.js';
import type { Db } from '../../../src/db/database.js';
import { approvePayout, cancelPayout, rejectPayout } from '../../../src/payouts/operator.js';
import { sleep, type SoakApi } from './api.js';
import type { Rng } from './rng.js';
import { ASSETS, type SoakWorld } from './setup.js';

export interface Payment {
  txid: string;
  to: string;
  asset: string;
  amount: bigint;
}

export interface TrafficLog {
  invoices: string[];
  permanentAddresses: number;
  payments: Payment[];
  payouts: string[];
  payoutRequests: Record<string, number>;
  operator: { approved: number; rejected: number; cancelled: number };
}

const DECIMALS = 6;

export function toBaseUnits(decimal: string): bigint {
  const [whole, frac = ''] = decimal.split('.');
  return BigInt(whole as string) * 10n ** BigInt(DECIMALS) + BigInt((frac + '0'.repeat(DECIMALS)).slice(0, DECIMALS));
}

export function newTrafficLog(): TrafficLog {
  return {
    invoices: [],
    permanentAddresses: 0,
    payments: [],
    payouts: [],
    payoutRequests: {},
    operator: { approved: 0, rejected: 0, cancelled: 0 },
  };
}

interface Ctx {
  world: SoakWorld;
  api: SoakApi;
  log: TrafficLog;
  running: () => boolean;
}

function pay(ctx: Ctx, rng: Rng, to: string, asset: string, amount: bigint): void {
  if (amount <= 0n) return;
  const { txid } = ctx.world.devnet.control.pay({ to, asset, amount, from: rng.int(0, 4) });
  ctx.log.payments.push({ txid, to, asset, amount });
}

/** Invoices of the per-invoice merchant, each paid exactly, over, under, or in two parts. */
export async function invoiceLoop(ctx: Ctx, rng: Rng): Promise<void> {
  const m = ctx.world.merchants.find((x) => x.mode === 'per_invoice')!;
  for (let n = 0; ctx.running(); n++) {
    const asset = rng.pick(ASSETS);
    const amount = `${rng.int(1, 40)}.${rng.int(0, 99)}`;
    const r = await ctx.api.until(
      'POST',
      '/v1/invoices',
      m.key,
      { order_id: `soak-${n}`, asset, amount, expires_in: 7200 },
      Date.now() + 60_000,
    );
    if (r && (r.status === 201 || r.status === 200)) {
      ctx.log.invoices.push(r.body.invoice_id as string);
      const due = toBaseUnits(r.body.amount_expected as string);
      const how = rng.next();
      if (how < 0.7) pay(ctx, rng, r.body.address, asset, due);
      else if (how < 0.8) pay(ctx, rng, r.body.address, asset, due + 1_000_000n);
      else if (how < 0.9) pay(ctx, rng, r.body.address, asset, due / 2n);
      else {
        pay(ctx, rng, r.body.address, asset, due / 2n);
        await sleep(rng.int(200, 3000));
        pay(ctx, rng, r.body.address, asset, due - due / 2n);
      }
    }
    await sleep(rng.int(200, 900));
  }
}

/** Users of the per-user merchant paying to their permanent address, again and again. */
export async function addressLoop(ctx: Ctx, rng: Rng): Promise<void> {
  const m = ctx.world.merchants.find((x) => x.mode === 'per_user')!;
  while (ctx.running()) {
    const user = `user-${rng.int(1, 40)}`;
    const r = await ctx.api.until(
      'POST',
      '/v1/addresses',
      m.key,
      { external_user_id: user, network: 'tron' },
      Date.now() + 60_000,
    );
    if (r && r.status === 200) {
      ctx.log.permanentAddresses += 1;
      pay(ctx, rng, r.body.address as string, rng.pick(ASSETS), BigInt(rng.int(1, 50_000)) * 1000n);
    }
    await sleep(rng.int(300, 1200));
  }
}

/** Payouts of both merchants; the operator approves most of those held for review. */
export async function payoutLoop(ctx: Ctx, rng: Rng): Promise<void> {
  const db: Db = ctx.world.database.db;
  for (let n = 0; ctx.running(); n++) {
    const m = rng.pick(ctx.world.merchants);
    const body = {
      reference: `soak-payout-${n}`,
      asset: rng.pick(ASSETS),
      to_address: rng.pick(ctx.world.payoutTargets),
      amount: `${rng.int(0, 3)}.${rng.int(1, 99)}`,
    };
    const r = await ctx.api.until('POST', '/v1/payouts', m.key, body, Date.now() + 60_000);
    if (r) ctx.log.payoutRequests[r.status] = (ctx.log.payoutRequests[r.status] ?? 0) + 1;
    if (r && (r.status === 202 || r.status === 200)) {
      const id = r.body.payout_id as string;
      ctx.log.payouts.push(id);
      if (r.body.status === 'pending_review') {
        if (rng.chance(0.9)) {
          await approvePayout(db, systemClock, 'soak', id);
          ctx.log.operator.approved += 1;
        } else {
          await rejectPayout(db, systemClock, 'soak', id, 'soak review');
          ctx.log.operator.rejected += 1;
        }
      } else if (rng.chance(0.05)) {
        // Cancelling races the worker: refused once signing began, which is the point.
        const ok = await cancelPayout(db, systemClock, 'soak', id, 'soak cancel').then(
          () => true,
          () => false,
        );
        if (ok) ctx.log.operator.cancelled += 1;
      }
    }
    await sleep(rng.int(300, 1500));
  }
}

/** Reads of known records, unknown ids and refused bodies: none may be a 5xx. */
export async function readLoop(ctx: Ctx, rng: Rng): Promise<void> {
  while (ctx.running()) {
    const m = rng.pick(ctx.world.merchants);
    const what = rng.int(0, 5);
    if (what === 0 && ctx.log.invoices.length > 0)
      await ctx.api.call('GET', `/v1/invoices/${rng.pick(ctx.log.invoices)}`, m.key);
    else if (what === 1 && ctx.log.payouts.length > 0)
      await ctx.api.call('GET', `/v1/payouts/${rng.pick(ctx.log.payouts)}`, m.key);
    else if (what === 2)
      await ctx.api.call(
        'GET',
        `/v1/invoices/00000000-0000-4000-8000-${String(rng.int(0, 999999)).padStart(12, '0')}`,
        m.key,
      );
    else if (what === 3)
      await ctx.api.call('POST', '/v1/payouts', m.key, {
        reference: 'bad',
        asset: 'USDT_TRON',
        to_address: 'T-not-an-address',
        amount: '-1',
      });
    else if (what === 4) await ctx.api.call('POST', '/v1/invoices', m.key, { order_id: '', amount: 'lots' });
    else await ctx.api.call('GET', '/v1/payouts/not-a-payout', m.key);
    await sleep(rng.int(50, 250));
  }
}

export type TrafficCtx = Ctx;

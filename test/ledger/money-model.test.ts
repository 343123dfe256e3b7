/**
 * Money model test: random sequences of credits, debits, payout creation, approval,
 * rejection and the payout state machine's later transitions (queued → signing → broadcast →
 * confirmed, or → failed), across merchants and assets, against a real SQLite file. After every
 * step: available ≥ 0, reserved equals the reservations the payouts still hold, the ledger's
 * running totals verify, and balances match a model that is a few lines of arithmetic.
 *
 * To add a command (cancel, a worker step, a deposit credit): write its class with `check`
 * (when it applies in the model) and `run` (the real call, then the model update), and list it
 * in `commands`.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/assets/catalog.js';
import { ManualClock } from '../../src/clock.js';
import { writeTx, type Database } from '../../src/db/database.js';
import { creditMerchant, debitMerchant } from '../../src/ledger/operator.js';
import { balance, heldReservation, verifyLedger } from '../../src/ledger/service.js';
import { changeMerchant, createMerchant } from '../../src/merchants/service.js';
import { findMerchant } from '../../src/merchants/store.js';
import { formatAmount } from '../../src/money.js';
import { approvePayout, cancelPayout, rejectPayout } from '../../src/payouts/operator.js';
import { createPayout } from '../../src/payouts/service.js';
import type { PayoutStatus } from '../../src/db/schema.js';
import { findPayoutForOperator } from '../../src/payouts/store.js';
import { transitionPayout } from '../../src/payouts/transitions.js';
import { addToWhitelist } from '../../src/whitelist/service.js';
import { newAddress, openTempDb } from '../payouts/fixture.js';

const ASSETS = ['USDT_TRON', 'TRX_TRON'] as const;
const DECIMALS = 6;
/** Statuses whose reservation is still held (the money is promised, not yet gone). */
const HOLDING: readonly PayoutStatus[] = ['pending_review', 'approved', 'queued', 'signing', 'broadcast'];

interface ModelPayout {
  id: string;
  merchant: number;
  asset: string;
  amount: bigint;
  status: PayoutStatus;
}

interface Model {
  /** credits − debits per `${merchant}/${asset}`. */
  balance: Map<string, bigint>;
  payouts: ModelPayout[];
}

interface Real {
  database: Database;
  clock: ManualClock;
  merchants: string[];
  addresses: Map<string, string>;
}

const slot = (m: number, asset: string) => `${m}/${asset}`;
const reservedOf = (model: Model, m: number, asset: string) =>
  model.payouts
    .filter((p) => p.merchant === m && p.asset === asset && HOLDING.includes(p.status))
    .reduce((s, p) => s + p.amount, 0n);
const availableOf = (model: Model, m: number, asset: string) =>
  (model.balance.get(slot(m, asset)) ?? 0n) - reservedOf(model, m, asset);

const catalog = loadCatalog('devnet');
const actor = 'model-test';

async function expectConsistent(model: Model, real: Real): Promise<void> {
  const db = real.database.db;
  for (const [m, merchantId] of real.merchants.entries()) {
    for (const asset of ASSETS) {
      const b = await balance(db, merchantId, asset);
      const label = `merchant ${m} ${asset}`;
      expect(b.available >= 0n, label).toBe(true);
      expect(b.balance, label).toBe(model.balance.get(slot(m, asset)) ?? 0n);
      expect(b.reserved, label).toBe(reservedOf(model, m, asset));
      let held = 0n;
      for (const p of model.payouts.filter((x) => x.merchant === m && x.asset === asset))
        held += await heldReservation(db, merchantId, p.id);
      expect(held, `${label}: reservations held by payouts`).toBe(b.reserved);
      expect(await verifyLedger(db, merchantId, asset), label).toEqual([]);
    }
  }
}

type Cmd = fc.AsyncCommand<Model, Real>;

class Credit implements Cmd {
  constructor(
    readonly m: number,
    readonly asset: string,
    readonly units: bigint,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    await creditMerchant(real.database.db, real.clock, actor, catalog, real.merchants[this.m]!, {
      asset: this.asset,
      amount: formatAmount(this.units, DECIMALS),
      memo: 'model credit',
    });
    model.balance.set(slot(this.m, this.asset), (model.balance.get(slot(this.m, this.asset)) ?? 0n) + this.units);
    await expectConsistent(model, real);
  }
  toString = () => `credit(${this.m}, ${this.asset}, ${this.units})`;
}

class Debit implements Cmd {
  constructor(
    readonly m: number,
    readonly asset: string,
    readonly units: bigint,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const call = debitMerchant(real.database.db, real.clock, actor, catalog, real.merchants[this.m]!, {
      asset: this.asset,
      amount: formatAmount(this.units, DECIMALS),
      memo: 'model debit',
    });
    if (this.units > availableOf(model, this.m, this.asset)) {
      await expect(call).rejects.toMatchObject({ code: 'insufficient_balance' });
    } else {
      await call;
      model.balance.set(slot(this.m, this.asset), (model.balance.get(slot(this.m, this.asset)) ?? 0n) - this.units);
    }
    await expectConsistent(model, real);
  }
  toString = () => `debit(${this.m}, ${this.asset}, ${this.units})`;
}

let references = 0;
class CreatePayout implements Cmd {
  constructor(
    readonly m: number,
    readonly asset: string,
    readonly units: bigint,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const merchantId = real.merchants[this.m]!;
    const merchant = (await findMerchant(real.database.db, merchantId))!;
    const body = {
      reference: `model-${++references}`,
      asset: this.asset,
      to_address: real.addresses.get(slot(this.m, this.asset))!,
      amount: formatAmount(this.units, DECIMALS),
    };
    const call = createPayout({ db: real.database.db, clock: real.clock, catalog }, merchant, body);
    if (this.units > availableOf(model, this.m, this.asset)) {
      await expect(call).rejects.toMatchObject({ code: 'insufficient_balance' });
    } else {
      const { payout, created } = await call;
      expect(created).toBe(true);
      model.payouts.push({
        id: payout.payout_id,
        merchant: this.m,
        asset: this.asset,
        amount: this.units,
        status: payout.status as PayoutStatus,
      });
    }
    await expectConsistent(model, real);
  }
  toString = () => `payout(${this.m}, ${this.asset}, ${this.units})`;
}

/**
 * An operator review, or a later step of the state machine, on the n-th payout (if any). With
 * `open`, the payout is one still moving and the step one it allows (so long paths to confirmed
 * are common); otherwise any step on any payout, and a step it does not allow must be refused.
 */
class Move implements Cmd {
  constructor(
    readonly n: number,
    public step: 'approve' | 'reject' | 'cancel' | 'queue' | 'sign' | 'broadcast' | 'confirm' | 'fail',
    readonly open = false,
  ) {}
  check = (model: Readonly<Model>) =>
    this.open ? model.payouts.some((p) => HOLDING.includes(p.status)) : model.payouts.length > 0;
  private static readonly TARGET: Record<Move['step'], PayoutStatus> = {
    approve: 'approved',
    reject: 'rejected',
    cancel: 'rejected',
    queue: 'queued',
    sign: 'signing',
    broadcast: 'broadcast',
    confirm: 'confirmed',
    fail: 'failed',
  };
  private static readonly ALLOWED: Record<Move['step'], readonly PayoutStatus[]> = {
    // The worker's moves (NEXT in src/payouts/transitions.ts): a re-sign goes back to queued, and
    // only a receipt fails a payout; the operator cancels anything not yet signing.
    approve: ['pending_review'],
    reject: ['pending_review'],
    cancel: ['pending_review', 'approved', 'queued'],
    queue: ['approved', 'signing', 'broadcast'],
    sign: ['queued'],
    broadcast: ['signing'],
    confirm: ['broadcast'],
    fail: ['broadcast'],
  };
  private static readonly FORWARD: Partial<Record<PayoutStatus, Move['step']>> = {
    pending_review: 'approve',
    approved: 'queue',
    queued: 'sign',
    signing: 'broadcast',
    broadcast: 'confirm',
  };
  private pick(model: Model): ModelPayout {
    if (!this.open) return model.payouts[this.n % model.payouts.length]!;
    const moving = model.payouts.filter((p) => HOLDING.includes(p.status));
    const p = moving[this.n % moving.length]!;
    const steps = (Object.keys(Move.ALLOWED) as Array<Move['step']>).filter((s) => Move.ALLOWED[s].includes(p.status));
    // Mostly forward (three in four), so runs reach confirmed and failed; otherwise any allowed step.
    const forward = Move.FORWARD[p.status];
    this.step = forward && (this.n >> 3) % 4 !== 0 ? forward : steps[(this.n >> 5) % steps.length]!;
    return p;
  }
  async run(model: Model, real: Real) {
    const p = this.pick(model);
    const db = real.database.db;
    const to = Move.TARGET[this.step];
    const allowed = Move.ALLOWED[this.step].includes(p.status);
    const call = (async () => {
      if (this.step === 'approve') return approvePayout(db, real.clock, actor, p.id);
      if (this.step === 'reject') return rejectPayout(db, real.clock, actor, p.id, 'model rejects');
      if (this.step === 'cancel') return cancelPayout(db, real.clock, actor, p.id, 'model cancels');
      return writeTx(db, async (trx) =>
        transitionPayout(trx, real.clock, (await findPayoutForOperator(trx, p.id))!, { to, actor }),
      );
    })();
    if (!allowed) {
      await expect(call).rejects.toMatchObject({ code: 'invalid_state' });
    } else {
      await call;
      if (to === 'confirmed')
        model.balance.set(slot(p.merchant, p.asset), (model.balance.get(slot(p.merchant, p.asset)) ?? 0n) - p.amount);
      p.status = to;
    }
    await expectConsistent(model, real);
  }
  toString = () => `${this.open ? 'advance' : this.step}(#${this.n})`;
}

describe('money model', () => {
  let tmp: Awaited<ReturnType<typeof openTempDb>>;
  const clock = new ManualClock('2026-03-01T10:00:00Z');
  beforeAll(async () => {
    tmp = await openTempDb();
  });
  afterAll(() => tmp.close());

  const merchantIx = fc.integer({ min: 0, max: 1 });
  const asset = fc.constantFrom(...ASSETS);
  const units = fc.bigInt({ min: 1_000_000n, max: 60_000_000n });
  const commands = [
    fc.tuple(merchantIx, asset, units).map(([m, a, u]) => new Credit(m, a, u * 4n)),
    fc.tuple(merchantIx, asset, units).map(([m, a, u]) => new Debit(m, a, u)),
    fc.tuple(merchantIx, asset, units).map(([m, a, u]) => new CreatePayout(m, a, u)),
    ...Array.from({ length: 5 }, () => fc.nat().map((n) => new Move(n, 'approve', true))),
    fc
      .tuple(
        fc.nat(),
        fc.constantFrom(
          'approve' as const,
          'reject' as const,
          'cancel' as const,
          'queue' as const,
          'sign' as const,
          'broadcast' as const,
          'confirm' as const,
          'fail' as const,
        ),
      )
      .map(([n, s]) => new Move(n, s)),
  ];

  it('keeps available ≥ 0, reserved = held reservations, and balances = the model after every step', async () => {
    const reached = new Set<PayoutStatus>();
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 80, size: 'large' }), async (cmds) => {
        const db = tmp.database.db;
        const merchants: string[] = [];
        const addresses = new Map<string, string>();
        for (let m = 0; m < 2; m++) {
          const created = await createMerchant(db, clock, actor, { name: `Model ${m}` });
          await changeMerchant(db, clock, actor, created.merchant_id, 'approve');
          merchants.push(created.merchant_id);
          for (const a of ASSETS) {
            const to = newAddress();
            await addToWhitelist(db, clock, actor, catalog, created.merchant_id, { asset: a, address: to, delay: '0' });
            addresses.set(slot(m, a), to);
          }
        }
        const model: Model = { balance: new Map(), payouts: [] };
        await fc.asyncModelRun(() => ({ model, real: { database: tmp.database, clock, merchants, addresses } }), cmds);
        for (const p of model.payouts) reached.add(p.status);
      }),
      { numRuns: 100 },
    );
    // The runs did reach the ends of the state machine (else the property proved little).
    expect([...reached]).toEqual(
      expect.arrayContaining(['pending_review', 'approved', 'rejected', 'confirmed', 'failed']),
    );
  });
});

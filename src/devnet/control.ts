/**
 * The devnet's control surface for tests, benchmarks, the demo and `paygate devnet pay`: mine,
 * fund (from the faucet), pay (a customer payment signed by a funded account), fork (also beyond the
 * solid height), a token's blacklist, faults, info.
 * Served under `/devnet/*`; production code never calls it, a real node has nothing like it.
 */
import type { FastifyInstance } from 'fastify';
import { TronWeb } from 'tronweb';
import type { BroadcastAnswer, DevnetChain, ForkMode, ForkReport } from './chain.js';
import type { Fault, FaultInjector, FaultSpec } from './faults.js';
import { DEVNET_TOKENS, tokenByAsset, type DevnetKey, type DevnetToken } from './keys.js';
import { DEVNET_TRC10_ID, tokenBalance, TRC10_PREFIX } from './state.js';

export interface DevnetInfo {
  head: { number: number; id: string; timestamp: number };
  solid: { number: number; id: string };
  pending: number;
  blockTimeMs: number;
  solidLag: number;
  tokens: DevnetToken[];
  accounts: { address: string; privateKey: string }[];
  faucet: string;
}

export interface Balances {
  address: string;
  activated: boolean;
  /** sun */
  trx: bigint;
  /** base units per asset code */
  tokens: Record<string, bigint>;
}

export interface DevnetControl {
  info(): DevnetInfo;
  mine(blocks?: number): { head: number; blocks: { number: number; id: string; transactions: number }[] };
  /** Sends TRX or a token from the faucet; `mine` also produces a block. */
  fund(p: { address: string; asset: string; amount: bigint; mine?: boolean }): { txid: string };
  /** A customer payment: `from` is a funded account's index or address (default 0). */
  pay(p: { to: string; asset: string; amount: bigint; from?: number | string; feeLimit?: bigint; mine?: boolean }): {
    txid: string;
    from: string;
  };
  /** `beyondSolid`: a fork that replaces blocks below the solid height (DevnetChain.forkBeyondSolid; mode stays reinclude). */
  fork(depth: number, mode?: ForkMode, beyondSolid?: boolean): ForkReport;
  /** The token contract of `asset` refuses transfers to or from `address` from now on (they revert). */
  blacklist(p: { asset: string; address: string }): { asset: string; address: string };
  addFault(spec: FaultSpec): Fault;
  clearFaults(id?: number): void;
  faults(): Fault[];
  balances(address: string): Balances;
  /** The simulated chain itself, for tests and benchmarks that need more than the above. */
  readonly chain: DevnetChain;
}

function accept(answer: BroadcastAnswer): string {
  if ('result' in answer) return answer.txid;
  if ('Error' in answer) throw new Error(answer.Error);
  throw new Error(`${answer.code}: ${Buffer.from(answer.message, 'hex').toString('utf8')}`);
}

/** The devnet's TRC-10 token as the control API names it. */
export const TRC10_ASSET = `${TRC10_PREFIX}${DEVNET_TRC10_ID}`;

export function createControl(
  chain: DevnetChain,
  faults: FaultInjector,
  cfg: { blockTimeMs: number; solidLag: number },
): DevnetControl {
  const fromKey = (from: number | string | undefined): DevnetKey => {
    const k =
      typeof from === 'string' && from.startsWith('T')
        ? chain.funded.find((x) => x.address === from)
        : chain.funded[Number(from ?? 0)];
    if (!k) throw new Error(`no funded devnet account ${String(from)}`);
    return k;
  };
  const checkAsset = (asset: string) => {
    if (asset !== 'TRX_TRON' && asset !== 'TRX' && asset !== TRC10_ASSET && !tokenByAsset(asset))
      throw new Error(`unknown asset ${asset}`);
  };
  const control: DevnetControl = {
    chain,
    info: () => ({
      head: { number: chain.head.number, id: chain.head.id, timestamp: chain.head.timestamp },
      solid: { number: chain.solid.number, id: chain.solid.id },
      pending: chain.pool.length,
      blockTimeMs: cfg.blockTimeMs,
      solidLag: cfg.solidLag,
      tokens: [...DEVNET_TOKENS],
      accounts: chain.funded.map((k) => ({ address: k.address, privateKey: k.privateKey })),
      faucet: chain.faucet.address,
    }),
    mine: (blocks = 1) => {
      if (!Number.isInteger(blocks) || blocks < 1 || blocks > 10_000) throw new Error('blocks must be 1..10000');
      const made = chain.mine(blocks);
      return {
        head: chain.head.number,
        blocks: made.map((b) => ({ number: b.number, id: b.id, transactions: b.txs.length })),
      };
    },
    fund: (p) => {
      checkAsset(p.asset);
      const txid = accept(chain.transfer({ from: chain.faucet, to: p.address, asset: p.asset, amount: p.amount }));
      if (p.mine) chain.mine(1);
      return { txid };
    },
    pay: (p) => {
      checkAsset(p.asset);
      const from = fromKey(p.from);
      const txid = accept(
        chain.transfer({
          from,
          to: p.to,
          asset: p.asset,
          amount: p.amount,
          ...(p.feeLimit ? { feeLimit: p.feeLimit } : {}),
        }),
      );
      if (p.mine) chain.mine(1);
      return { txid, from: from.address };
    },
    fork: (depth, mode = 'reinclude', beyondSolid = false) => {
      if (!beyondSolid) return chain.fork(depth, mode);
      if (mode !== 'reinclude')
        throw new Error('a fork beyond the solid height keeps the transactions in their blocks (mode reinclude)');
      return chain.forkBeyondSolid(depth);
    },
    blacklist: (p) => {
      chain.blacklist(p.asset, p.address);
      return { asset: p.asset, address: p.address };
    },
    addFault: (spec) => faults.add(spec),
    clearFaults: (id) => faults.clear(id),
    faults: () => faults.list(),
    balances: (address) => {
      const hex = TronWeb.address.toHex(address).toLowerCase();
      const a = chain.live.accounts.get(hex);
      const tokens: Record<string, bigint> = {};
      for (const t of DEVNET_TOKENS) tokens[t.asset] = tokenBalance(chain.live, t.hex, hex);
      return { address, activated: a !== undefined, trx: a?.balance ?? 0n, tokens };
    },
  };
  return control;
}

/** JSON with bigints as decimal strings. */
function jsonSafe(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x)));
}

function amountOf(v: unknown): bigint {
  if ((typeof v === 'string' && /^\d+$/.test(v)) || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0))
    return BigInt(v);
  throw new Error('amount must be a non-negative integer in base units (a decimal string)');
}

/* eslint-disable @typescript-eslint/no-explicit-any */
export function registerControlRoutes(app: FastifyInstance, control: DevnetControl): void {
  const handle =
    (fn: (body: Record<string, any>, params: Record<string, string>) => unknown) => async (req: any, reply: any) => {
      try {
        return reply.send(
          jsonSafe(fn((req.body ?? {}) as Record<string, any>, (req.params ?? {}) as Record<string, string>)),
        );
      } catch (e) {
        return reply.code(400).send({ error: e instanceof Error ? e.message : String(e) });
      }
    };
  app.get(
    '/devnet/info',
    handle(() => control.info()),
  );
  app.post(
    '/devnet/mine',
    handle((b) => control.mine(b.blocks === undefined ? 1 : Number(b.blocks))),
  );
  app.post(
    '/devnet/fund',
    handle((b) =>
      control.fund({
        address: String(b.address),
        asset: String(b.asset ?? 'TRX_TRON'),
        amount: amountOf(b.amount),
        mine: b.mine === true,
      }),
    ),
  );
  app.post(
    '/devnet/pay',
    handle((b) =>
      control.pay({
        to: String(b.to),
        asset: String(b.asset ?? 'USDT_TRON'),
        amount: amountOf(b.amount),
        from: b.from,
        ...(b.feeLimit !== undefined ? { feeLimit: amountOf(b.feeLimit) } : {}),
        mine: b.mine === true,
      }),
    ),
  );
  app.post(
    '/devnet/fork',
    handle((b) => control.fork(Number(b.depth), b.mode === 'drop' ? 'drop' : 'reinclude', b.beyond_solid === true)),
  );
  app.post(
    '/devnet/blacklist',
    handle((b) => control.blacklist({ asset: String(b.asset ?? 'USDT_TRON'), address: String(b.address) })),
  );
  app.get(
    '/devnet/faults',
    handle(() => control.faults()),
  );
  app.post(
    '/devnet/faults',
    handle((b) => control.addFault(b as FaultSpec)),
  );
  app.delete(
    '/devnet/faults',
    handle(() => (control.clearFaults(), { cleared: true })),
  );
  app.delete(
    '/devnet/faults/:id',
    handle((_b, p) => (control.clearFaults(Number(p.id)), { cleared: Number(p.id) })),
  );
  app.get(
    '/devnet/balance/:address',
    handle((_b, p) => control.balances(String(p.address))),
  );
}

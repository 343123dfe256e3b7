/**
 * Reserves (docs/operations/month-end.md, "Month-end"): per asset, what the chain holds for the service
 * against what the books owe and what the service earned.
 *
 *   holdings    = hot wallet (TRX: with its own stake) + deposit addresses + gap addresses, from the node
 *   liabilities = merchants' balances (available + reserved) + deposits seen, not yet credited
 *                 + unattributed deposits (payments to a restore's gap addresses, owed to their sender)
 *   earned      = service fees taken from deposits + payout fees charged − network costs (TRX burned
 *                 by sweeps and payouts; in TRX only)
 *   difference  = holdings − (liabilities + earned): 0 when every movement is booked; below 0 money
 *                 is missing (a shortfall against the books), above 0 the operator's own funds
 *                 (TRX sent to the hot wallet for fees) or an unbooked arrival
 *   uncovered   = liabilities − in-flight payouts − holdings, when positive: merchants' money the
 *                 chain does not hold. The alert.
 *
 * Order of reading, so movements during the check err towards a surplus, never a false alarm:
 * each batch of deposit addresses is read from the books, then from the node (a deposit is on
 * chain before the watcher books it); the hot wallet after every deposit address (a sweep during
 * the check is then counted twice, not missed); the ledger and payouts last (a payout that left
 * the hot wallet by then is in flight or debited). A payout in flight (signing, broadcast) may
 * have left already: its amount (and, in TRX, its fee limit) is allowed for in `uncovered`.
 */
import type { AssetCatalog, CatalogAsset } from '../assets/catalog.js';
import type { TronClient } from '../chain/client.js';
import { checkChain } from '../chain/identity.js';
import type { Clock } from '../clock.js';
import type { TronNetwork } from '../config.js';
import { writeTx, type Db, type Executor } from '../db/database.js';
import { AppError } from '../errors.js';
import { formatAmount } from '../money.js';
import { findWallet } from '../wallet/store.js';
import { addBalances, hotWalletHoldings, type Pair } from './holdings.js';
import {
  accountBalances,
  depositAddressBatch,
  depositsAt,
  insertCheck,
  marksAt,
  payoutBatch,
  sweepFeeBatch,
  toppedUpAmong,
  unattributedDeposits,
} from './store.js';

export interface ReservesDeps {
  /** Where the check is recorded. */
  db: Db;
  /** Where the books are read (`Services.scans` when there is one: the check walks whole tables). */
  reads?: Executor;
  chain: TronClient;
  catalog: AssetCatalog;
  clock: Clock;
  /** The configured network: the node must serve the chain this database belongs to. */
  network: TronNetwork;
}

export interface AssetReserves {
  asset: string;
  holdings: {
    hot_wallet: string;
    /** TRX the hot wallet staked (its own, delegated or not); "0" for tokens. */
    hot_wallet_staked: string;
    deposit_addresses: string;
    /** The addresses of a restore's derivation gap that received payments. */
    unattributed_addresses: string;
    total: string;
  };
  liabilities: {
    merchant_balances: string;
    uncredited_deposits: string;
    unattributed_deposits: string;
    total: string;
  };
  earned: {
    receive_fees: string;
    payout_fees: string;
    /** TRX burned by sweeps and payouts (subtracted); "0" for tokens. */
    network_costs: string;
    total: string;
  };
  /** Payouts signing or broadcast: their amounts (and TRX fee limits) may have left already. */
  in_flight_payouts: string;
  /** liabilities.total + earned.total */
  expected: string;
  /** holdings.total − expected */
  difference: string;
  /** What of the liabilities the holdings do not cover (in-flight payouts allowed for); "0" when covered. */
  uncovered: string;
  covered: boolean;
}

export interface ReservesReport {
  checked_at: string;
  hot_wallet: string;
  /** Deposit address balances read from the node (pairs of address and asset). */
  addresses_read: number;
  /** Every asset covered. */
  covered: boolean;
  assets: AssetReserves[];
}

export interface CheckOptions {
  /** Record the check (default true): the latest feeds the metrics and /readyz. */
  record?: boolean;
  /** Deposit addresses per batch (default 200). */
  batchSize?: number;
}

type Sums = Map<string, bigint>;
const add = (m: Sums, asset: string, v: bigint) => m.set(asset, (m.get(asset) ?? 0n) + v);
const get = (m: Sums, asset: string) => m.get(asset) ?? 0n;
const max0 = (v: bigint) => (v > 0n ? v : 0n);

/** The books and the chain, summed by asset. */
interface Totals {
  hot: Sums;
  staked: bigint;
  depositHoldings: Sums;
  gapHoldings: Sums;
  balances: Sums;
  uncredited: Sums;
  unattributed: Sums;
  receiveFees: Sums;
  payoutFees: Sums;
  networkCosts: bigint;
  inFlight: Sums;
  inFlightTrxFees: bigint;
  read: number;
}

/** Deposit addresses batch by batch: their books (deposits, marks, top-ups), then their balances. */
async function readDepositAddresses(deps: ReservesDeps, reads: Executor, t: Totals, batch: number): Promise<void> {
  const trx = deps.catalog.assets.find((a) => a.type === 'native')?.code;
  let after = '';
  for (;;) {
    const addresses = await depositAddressBatch(reads, after, batch);
    if (addresses.length === 0) return;
    const [deposits, marks, toppedUp] = await Promise.all([
      depositsAt(reads, addresses),
      marksAt(reads, addresses),
      toppedUpAmong(reads, addresses),
    ]);
    const lastBlock = new Map<string, number>();
    for (const d of deposits) {
      const key = `${d.address} ${d.asset}`;
      lastBlock.set(key, Math.max(lastBlock.get(key) ?? 0, d.block_number));
      if (d.credited_amount === null) add(t.uncredited, d.asset, BigInt(d.amount));
      else add(t.receiveFees, d.asset, BigInt(d.amount) - BigInt(d.credited_amount));
    }
    const markOf = new Map(marks.map((m) => [`${m.address} ${m.asset}`, m]));
    const pairs = new Map<string, Pair>();
    for (const [key, block] of lastBlock) {
      const [address, asset] = key.split(' ') as [string, string];
      const mark = markOf.get(key);
      // A token found empty by the sweeper at or after its last deposit: nothing can have come
      // since (a sweep moves a token's whole balance). TRX is always read: a TRX sweep leaves
      // what it kept for its own fee.
      const empty = mark !== undefined && mark.balance === '0' && mark.checked_block >= block;
      if (empty && asset !== trx) continue;
      pairs.set(key, { address, asset });
    }
    // A top-up's TRX not burned stays at the address: the service's own, still held.
    if (trx) for (const address of toppedUp) pairs.set(`${address} ${trx}`, { address, asset: trx });
    t.read += await addBalances(deps.chain, deps.catalog, [...pairs.values()], t.depositHoldings);
    after = addresses[addresses.length - 1]!;
  }
}

async function readBooks(reads: Executor, t: Totals, batch: number): Promise<void> {
  for (const b of await accountBalances(reads)) add(t.balances, b.asset, BigInt(b.balance));
  let after = '';
  for (;;) {
    const rows = await payoutBatch(reads, after, batch);
    for (const p of rows) {
      if (p.status === 'confirmed') add(t.payoutFees, p.asset, BigInt(p.fee_charged));
      if (p.network_fee !== null) t.networkCosts += BigInt(p.network_fee);
      if (p.status === 'signing' || p.status === 'broadcast') {
        add(t.inFlight, p.asset, BigInt(p.amount));
        t.inFlightTrxFees += BigInt(p.fee_limit ?? '0');
      }
    }
    if (rows.length < batch) break;
    after = rows[rows.length - 1]!.id;
  }
  let afterTx = 0;
  for (;;) {
    const rows = await sweepFeeBatch(reads, afterTx, batch);
    for (const r of rows) if (r.fee !== null) t.networkCosts += BigInt(r.fee);
    if (rows.length < batch) break;
    afterTx = rows[rows.length - 1]!.id;
  }
}

function assetReserves(a: CatalogAsset, t: Totals): AssetReserves {
  const code = a.code;
  const native = a.type === 'native';
  const fmt = (v: bigint) => formatAmount(v, a.decimals);
  const staked = native ? t.staked : 0n;
  const holdings = get(t.hot, code) + staked + get(t.depositHoldings, code) + get(t.gapHoldings, code);
  const liabilities = get(t.balances, code) + get(t.uncredited, code) + get(t.unattributed, code);
  const costs = native ? t.networkCosts : 0n;
  const earned = get(t.receiveFees, code) + get(t.payoutFees, code) - costs;
  const inFlight = get(t.inFlight, code) + (native ? t.inFlightTrxFees : 0n);
  const expected = liabilities + earned;
  const uncovered = max0(liabilities - inFlight - holdings);
  return {
    asset: code,
    holdings: {
      hot_wallet: fmt(get(t.hot, code)),
      hot_wallet_staked: fmt(staked),
      deposit_addresses: fmt(get(t.depositHoldings, code)),
      unattributed_addresses: fmt(get(t.gapHoldings, code)),
      total: fmt(holdings),
    },
    liabilities: {
      merchant_balances: fmt(get(t.balances, code)),
      uncredited_deposits: fmt(get(t.uncredited, code)),
      unattributed_deposits: fmt(get(t.unattributed, code)),
      total: fmt(liabilities),
    },
    earned: {
      receive_fees: fmt(get(t.receiveFees, code)),
      payout_fees: fmt(get(t.payoutFees, code)),
      network_costs: fmt(costs),
      total: fmt(earned),
    },
    in_flight_payouts: fmt(inFlight),
    expected: fmt(expected),
    difference: fmt(holdings - expected),
    uncovered: fmt(uncovered),
    covered: uncovered === 0n,
  };
}

/**
 * Reads the chain and the books and compares them per catalog asset; records the result unless
 * `record: false`. `invalid_state` before `paygate init` (no hot wallet to read), `wrong_network`
 * for a node of another chain. A node that fails fails the check (its errors pass through):
 * nothing is recorded then.
 */
export async function checkReserves(deps: ReservesDeps, opts: CheckOptions = {}): Promise<ReservesReport> {
  const reads = deps.reads ?? deps.db;
  const batch = opts.batchSize ?? 200;
  const checkedAt = deps.clock.now().toISOString();
  const wallet = await findWallet(reads);
  if (!wallet) throw new AppError('invalid_state', 'No wallet yet: run `paygate init` first');
  // Balances of another chain would compare nonsense with these books (wrong_network).
  await checkChain(deps.db, deps.clock, deps.network, deps.chain);
  const t: Totals = {
    hot: new Map(),
    staked: 0n,
    depositHoldings: new Map(),
    gapHoldings: new Map(),
    balances: new Map(),
    uncredited: new Map(),
    unattributed: new Map(),
    receiveFees: new Map(),
    payoutFees: new Map(),
    networkCosts: 0n,
    inFlight: new Map(),
    inFlightTrxFees: 0n,
    read: 0,
  };
  await readDepositAddresses(deps, reads, t, batch);
  const gap = await unattributedDeposits(reads);
  for (const d of gap) add(t.unattributed, d.asset, BigInt(d.amount));
  const gapPairs = new Map(gap.map((d) => [`${d.address} ${d.asset}`, { address: d.address, asset: d.asset }]));
  t.read += await addBalances(deps.chain, deps.catalog, [...gapPairs.values()], t.gapHoldings);
  const hot = await hotWalletHoldings(deps.chain, deps.catalog, wallet.hot_address);
  t.hot = hot.balances;
  t.staked = hot.stakedTrx;
  await readBooks(reads, t, batch * 5);
  const assets = deps.catalog.assets.map((a) => assetReserves(a, t));
  const report: ReservesReport = {
    checked_at: checkedAt,
    hot_wallet: wallet.hot_address,
    addresses_read: t.read,
    covered: assets.every((a) => a.covered),
    assets,
  };
  if (opts.record !== false)
    await writeTx(deps.db, (trx) =>
      insertCheck(
        trx,
        assets.map((a) => ({
          checked_at: checkedAt,
          asset: a.asset,
          covered: a.covered ? 1 : 0,
          figures: JSON.stringify(a),
        })),
      ),
    );
  return report;
}

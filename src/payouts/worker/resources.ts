/**
 * What the hot wallet can still pay, read once per worker tick from the node and reduced by what
 * is already on its way (payouts in `signing` or `broadcast`, whose transactions may not be in the
 * balance the node reports yet). Counting in-flight payouts against a balance that may already
 * include them can only underestimate: a payout then waits a little, it never goes out unfunded.
 */
import type { CatalogAsset } from '../../assets/catalog.js';
import type { TronClient } from '../../chain/client.js';
import type { Executor } from '../../db/database.js';
import { formatAmount } from '../../money.js';
import type { PayoutRow } from '../store.js';
import { inFlightPayouts } from './store.js';

/** Sun burned per unit of energy (docs/tron.md: 100 sun since August 2025). */
export const SUN_PER_ENERGY = 100n;
/** Margin on the energy estimate for fee_limit (the dynamic energy model moves it). */
export const ENERGY_MARGIN_PERCENT = 130n;
/** TRX kept back for the bandwidth of one transaction when it has to be burned (~345 bytes × 1,000 sun). */
export const BANDWIDTH_ALLOWANCE = 500_000n;
/** A TRX transfer: bandwidth plus the 1.1 TRX of activating a new receiver, at most. */
export const TRX_TRANSFER_ALLOWANCE = 1_600_000n;

const trx = (sun: bigint) => `${formatAmount(sun, 6)} TRX`;

/** The TRX (sun) a payout may burn or send at most, once signed. */
export function trxNeed(row: Pick<PayoutRow, 'amount' | 'fee_limit'>, asset: CatalogAsset): bigint {
  return asset.type === 'native'
    ? BigInt(row.amount) + TRX_TRANSFER_ALLOWANCE
    : BigInt(row.fee_limit ?? 0) + BANDWIDTH_ALLOWANCE;
}

export class HotWalletBudget {
  private tokens = new Map<string, bigint>();

  private constructor(
    private readonly chain: TronClient,
    readonly address: string,
    /** sun spendable after in-flight payouts */
    private trxLeft: bigint,
    private energyLeft: bigint,
    /** base units per asset code already on their way */
    private readonly inFlight: Map<string, bigint>,
  ) {}

  static async read(
    chain: TronClient,
    db: Executor,
    address: string,
    assetOf: (code: string) => CatalogAsset | undefined,
  ): Promise<HotWalletBudget> {
    const [account, resources, flying] = await Promise.all([
      chain.getAccount(address),
      chain.getAccountResources(address),
      inFlightPayouts(db),
    ]);
    let trxLeft = account.balance;
    const inFlight = new Map<string, bigint>();
    for (const r of flying) {
      const asset = assetOf(r.asset);
      if (!asset) continue;
      trxLeft -= trxNeed(r, asset);
      if (asset.type !== 'native') inFlight.set(asset.code, (inFlight.get(asset.code) ?? 0n) + BigInt(r.amount));
    }
    const energyLeft = resources.energyLimit - resources.energyUsed;
    return new HotWalletBudget(chain, address, trxLeft, energyLeft > 0n ? energyLeft : 0n, inFlight);
  }

  private async tokenLeft(asset: CatalogAsset): Promise<bigint> {
    let left = this.tokens.get(asset.code);
    if (left === undefined) {
      left =
        (await this.chain.getTrc20Balance(asset.contract as string, this.address)) -
        (this.inFlight.get(asset.code) ?? 0n);
      this.tokens.set(asset.code, left);
    }
    return left;
  }

  /**
   * Whether the wallet can pay `row` now. For a TRC20 payout it estimates the energy and picks the
   * fee_limit (estimate plus margin, at most `feeLimitCap`). On success the payout's share is taken
   * from the budget; otherwise `wait` says what is short, for the operator.
   */
  async reserve(
    row: PayoutRow,
    asset: CatalogAsset,
    feeLimitCap: bigint,
  ): Promise<{ ok: true; feeLimit: bigint | null } | { ok: false; wait: string }> {
    const amount = BigInt(row.amount);
    if (asset.type === 'native') {
      const need = amount + TRX_TRANSFER_ALLOWANCE;
      if (this.trxLeft < need)
        return {
          ok: false,
          wait: `hot wallet short of TRX: needs ${trx(need)} (amount + network fees), has ${trx(this.trxLeft)} spendable`,
        };
      this.trxLeft -= need;
      return { ok: true, feeLimit: null };
    }
    const tokens = await this.tokenLeft(asset);
    if (tokens < amount) {
      return {
        ok: false,
        wait: `hot wallet short of ${asset.code}: needs ${formatAmount(amount, asset.decimals)}, has ${formatAmount(tokens > 0n ? tokens : 0n, asset.decimals)} spendable`,
      };
    }
    const energy = await this.chain.estimateTrc20TransferEnergy(
      asset.contract as string,
      this.address,
      row.to_address,
      amount,
    );
    // fee_limit caps all the energy a call may use, staked or burned: it must cover the estimate.
    const required = energy * SUN_PER_ENERGY;
    if (required > feeLimitCap) {
      return {
        ok: false,
        wait: `fee limit cap too low: the transfer needs ${energy} energy, a fee_limit of ${trx(required)}, above the cap of ${trx(feeLimitCap)}; raise --fee-limit`,
      };
    }
    const wanted = (required * ENERGY_MARGIN_PERCENT) / 100n;
    const feeLimit = wanted < feeLimitCap ? wanted : feeLimitCap;
    // TRX burned for the energy the stake does not cover (at most the fee_limit), plus bandwidth.
    const burn =
      ((energy > this.energyLeft ? energy - this.energyLeft : 0n) * SUN_PER_ENERGY * ENERGY_MARGIN_PERCENT) / 100n;
    const need = (burn < feeLimit ? burn : feeLimit) + BANDWIDTH_ALLOWANCE;
    if (this.trxLeft < need) {
      return {
        ok: false,
        wait: `hot wallet short of energy and TRX: the transfer needs ${energy} energy (${this.energyLeft} staked left), up to ${trx(need)} to burn, and ${trx(this.trxLeft > 0n ? this.trxLeft : 0n)} is spendable; stake energy or send TRX to ${this.address}`,
      };
    }
    this.trxLeft -= need;
    this.tokens.set(asset.code, tokens - amount);
    this.energyLeft = energy > this.energyLeft ? 0n : this.energyLeft - energy;
    return { ok: true, feeLimit };
  }
}

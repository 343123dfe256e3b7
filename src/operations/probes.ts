/**
 * Node calls for /readyz and /metrics, bounded: every call has a short timeout (a hung node must
 * not hang a probe) and answers are cached briefly (scrapes and probes every few seconds must not
 * hammer TronGrid's rate limit).
 */
import type { Services } from '../services.js';
import { formatAmount } from '../money.js';

export class ProbeTimeout extends Error {
  constructor(what: string, ms: number) {
    super(`${what}: no answer within ${ms} ms`);
    this.name = 'ProbeTimeout';
  }
}

export function withTimeout<T>(what: string, ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProbeTimeout(what, ms)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

interface Cached<T> {
  at: number;
  value: T;
}

export interface ChainProbeOptions {
  /** Timeout of one node call (default 2 s). */
  timeoutMs?: number;
  /** How long a head block answer is reused (default 2 s). */
  headTtlMs?: number;
  /** How long hot wallet balances are reused (default 30 s). */
  balanceTtlMs?: number;
}

/** One per app: its caches live as long as the admin listener. */
export class ChainProbe {
  private head: Cached<number> | null = null;
  private balances: Cached<Array<{ asset: string; value: number }>> | null = null;
  private readonly timeoutMs: number;
  private readonly headTtlMs: number;
  private readonly balanceTtlMs: number;

  constructor(
    private readonly s: Services,
    opts: ChainProbeOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? 2_000;
    this.headTtlMs = opts.headTtlMs ?? 2_000;
    this.balanceTtlMs = opts.balanceTtlMs ?? 30_000;
  }

  /** The node's head block number; throws when the node fails or does not answer in time. */
  async headBlock(): Promise<number> {
    const now = Date.now();
    if (this.head && now - this.head.at < this.headTtlMs) return this.head.value;
    const block = await withTimeout('node head block', this.timeoutMs, this.s.chain.getHeadBlock());
    this.head = { at: now, value: block.number };
    return block.number;
  }

  /**
   * Hot wallet balance per catalog asset, in asset units (a display figure for dashboards, not
   * money arithmetic). Empty before `paygate init`; the last good answer while the node fails.
   */
  async hotWalletBalances(): Promise<Array<{ asset: string; value: number }>> {
    const now = Date.now();
    if (this.balances && now - this.balances.at < this.balanceTtlMs) return this.balances.value;
    const wallet = await this.s.db.selectFrom('wallet').select('hot_address').executeTakeFirst();
    if (!wallet) return [];
    try {
      const value = await withTimeout('hot wallet balances', this.timeoutMs * 2, this.readBalances(wallet.hot_address));
      this.balances = { at: now, value };
    } catch (err) {
      this.s.logger.warn({ err }, 'metrics: hot wallet balances unavailable');
      if (!this.balances) return [];
    }
    return this.balances?.value ?? [];
  }

  private async readBalances(address: string): Promise<Array<{ asset: string; value: number }>> {
    const assets = this.s.catalog.assets;
    const account = assets.some((a) => a.type === 'native') ? await this.s.chain.getAccount(address) : null;
    const out: Array<{ asset: string; value: number }> = [];
    for (const a of assets) {
      const units =
        a.type === 'native'
          ? (account?.balance ?? 0n)
          : await this.s.chain.getTrc20Balance(a.contract as string, address);
      out.push({ asset: a.code, value: Number(formatAmount(units, a.decimals)) });
    }
    return out;
  }
}

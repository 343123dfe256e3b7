/**
 * Hands out deposit addresses: takes the next derivation index from the database (inside the
 * caller's write transaction, so an index and its address row commit or roll back together) and
 * turns it into an address from the xpub, normally straight from the pre-derived pool.
 */
import type { Db, Executor, Tx } from '../db/database.js';
import { AppError } from '../errors.js';
import { DepositKeyChain, INDEX_SPACE } from '../wallet/hd.js';
import { DepositAddressPool, type AddressClaim, type PoolOptions } from '../wallet/pool.js';
import { findWallet, takeNextIndex } from '../wallet/store.js';
import { insertDepositAddress, type DepositAddressRow } from './store.js';

export interface AllocatorOptions {
  /** Indexes at or above this are never handed out (2^31, the non-hardened space; tests lower it). */
  indexLimit?: number;
  pool?: PoolOptions;
}

export class DepositAddressAllocator {
  private pool: DepositAddressPool | null = null;
  private loading: Promise<DepositAddressPool | null> | null = null;
  private readonly indexLimit: number;

  constructor(private readonly opts: AllocatorOptions = {}) {
    this.indexLimit = Math.min(opts.indexLimit ?? INDEX_SPACE, INDEX_SPACE);
  }

  /** Loads the xpub and starts deriving ahead; without it the first allocation loads lazily. */
  async start(db: Db): Promise<void> {
    const pool = await this.poolFor(db);
    await pool?.fill();
  }

  async stop(): Promise<void> {
    await this.pool?.stop();
  }

  /** Addresses derived ahead, or null before the pool is loaded (no wallet yet, or not started). */
  get ready(): number | null {
    return this.pool ? this.pool.size : null;
  }

  get stats(): { hits: number; misses: number; worker: boolean; workerFailure: string | null } {
    const p = this.pool;
    return {
      hits: p?.hits ?? 0,
      misses: p?.misses ?? 0,
      worker: p?.usesWorker ?? false,
      workerFailure: p?.workerFailure ?? null,
    };
  }

  /** One pool however many creations ask at once (claims run outside any write transaction). */
  private poolFor(db: Executor): Promise<DepositAddressPool | null> {
    this.loading ??= this.loadPool(db).then(
      (pool) => {
        if (!pool) this.loading = null; // no wallet yet: look again next time
        return pool;
      },
      (e: unknown) => {
        this.loading = null;
        throw e;
      },
    );
    return this.loading;
  }

  private async loadPool(db: Executor): Promise<DepositAddressPool | null> {
    const wallet = await findWallet(db);
    if (!wallet) return null;
    const pool = new DepositAddressPool(new DepositKeyChain(wallet.deposit_xpub), {
      limit: this.indexLimit,
      ...this.opts.pool,
    });
    pool.moveFloor(wallet.next_index);
    this.pool = pool;
    return pool;
  }

  /**
   * Before a write transaction that may allocate: waits (off the event loop) while creations
   * outrun the pool, and holds one ready address for the caller, who passes the claim to allocate
   * and releases it when done (a no-op once allocate used it).
   */
  async claim(db: Executor): Promise<AddressClaim> {
    const pool = await this.poolFor(db);
    return pool ? pool.reserve() : { open: false, release: () => {} };
  }

  /**
   * Call inside a write transaction. Safe when the transaction runs again (writeTx on PostgreSQL):
   * the pool only caches derivations, so an index whose first run rolled back is derived on the
   * spot when it is handed out again, and a claim is used up once.
   */
  async allocate(
    trx: Tx,
    merchantId: string,
    externalUserId: string | null,
    now: string,
    claim?: AddressClaim,
  ): Promise<DepositAddressRow> {
    const pool = await this.poolFor(trx);
    if (!pool)
      throw new AppError('service_unavailable', 'The wallet is not initialised; the operator must run `paygate init`');
    const index = await takeNextIndex(trx, this.indexLimit);
    if (index === null) throw new AppError('addresses_exhausted', 'No deposit address indexes are left');
    const row: DepositAddressRow = {
      address: pool.addressAt(index, claim),
      derivation_index: index,
      merchant_id: merchantId,
      external_user_id: externalUserId,
      created_at: now,
    };
    await insertDepositAddress(trx, row);
    return row;
  }
}

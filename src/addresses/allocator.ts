/**
 * Hands out deposit addresses in two steps. `reserve` takes the next derivation index in a write
 * of its own (the counter's row lock lasts that one statement, not a creation) and derives its
 * address with no lock held; `allocate` stores the reserved address in the caller's transaction.
 * The rule the counter keeps is that no index is handed out twice; an index whose creation fails
 * afterwards stays unused (no address row, never shown, never watched), a gap BIP32 permits.
 */
import type { Db, Executor, Tx } from '../db/database.js';
import { writeTx } from '../db/database.js';
import type { GroupCommit } from '../db/group-commit.js';
import { AppError } from '../errors.js';
import { DepositKeyChain, INDEX_SPACE, type ChildHmac } from '../wallet/hd.js';
import { findWallet, takeNextIndex } from '../wallet/store.js';
import { insertDepositAddress, type DepositAddressRow } from './store.js';

export interface AllocatorOptions {
  /** Indexes at or above this are never handed out (2^31, the non-hardened space; tests lower it). */
  indexLimit?: number;
  /** The HMAC of the derivation; tests replace it to force a child BIP32 makes invalid. */
  hmac?: ChildHmac;
}

/** A derivation index taken for one creation, with its address. */
export interface ReservedAddress {
  derivation_index: number;
  address: string;
}

export class DepositAddressAllocator {
  /** The account node, parsed from the wallet row once; the xpub of a wallet never changes. */
  private chain: DepositKeyChain | null = null;
  private readonly indexLimit: number;
  private readonly hmac: ChildHmac | undefined;

  constructor(opts: AllocatorOptions = {}) {
    this.indexLimit = Math.min(opts.indexLimit ?? INDEX_SPACE, INDEX_SPACE);
    this.hmac = opts.hmac;
  }

  private async chainFor(db: Executor): Promise<DepositKeyChain> {
    if (this.chain) return this.chain;
    const wallet = await findWallet(db);
    // No wallet yet: look again next time.
    if (!wallet)
      throw new AppError('service_unavailable', 'The wallet is not initialised; the operator must run `paygate init`');
    this.chain = new DepositKeyChain(wallet.deposit_xpub, this.hmac);
    return this.chain;
  }

  /**
   * The next derivation index and its address, before the creation's transaction. The index is
   * taken alone (through `groupCommit` when given: on SQLite with the other writes of its group);
   * an index BIP32 makes invalid is skipped for the next one.
   */
  async reserve(db: Db, groupCommit?: GroupCommit): Promise<ReservedAddress> {
    const chain = await this.chainFor(db);
    const take = (trx: Tx) => takeNextIndex(trx, this.indexLimit);
    for (;;) {
      const index = await (groupCommit ? groupCommit.run(take, ROW_LOCKS) : writeTx(db, take, ROW_LOCKS));
      if (index === null) throw new AppError('addresses_exhausted', 'No deposit address indexes are left');
      const address = chain.addressAt(index);
      if (address !== null) return { derivation_index: index, address };
    }
  }

  /** Stores a reserved address in the caller's write transaction; it commits or rolls back with it. */
  async allocate(
    trx: Tx,
    reserved: ReservedAddress,
    merchantId: string,
    externalUserId: string | null,
    now: string,
  ): Promise<DepositAddressRow> {
    const row: DepositAddressRow = {
      ...reserved,
      merchant_id: merchantId,
      external_user_id: externalUserId,
      created_at: now,
    };
    await insertDepositAddress(trx, row);
    return row;
  }
}

const ROW_LOCKS = { rowLocks: true };

/**
 * Hands out deposit addresses: takes the next derivation index from the database (inside the
 * caller's write transaction, so an index and its address row commit or roll back together) and
 * derives its address from the account xpub there and then.
 */
import type { Executor, Tx } from '../db/database.js';
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

export class DepositAddressAllocator {
  /** The account node, parsed from the wallet row once; the xpub of a wallet never changes. */
  private chain: DepositKeyChain | null = null;
  private readonly indexLimit: number;
  private readonly hmac: ChildHmac | undefined;

  constructor(opts: AllocatorOptions = {}) {
    this.indexLimit = Math.min(opts.indexLimit ?? INDEX_SPACE, INDEX_SPACE);
    this.hmac = opts.hmac;
  }

  private async chainFor(db: Executor): Promise<DepositKeyChain | null> {
    if (this.chain) return this.chain;
    const wallet = await findWallet(db);
    if (!wallet) return null; // no wallet yet: look again next time
    this.chain = new DepositKeyChain(wallet.deposit_xpub, this.hmac);
    return this.chain;
  }

  /**
   * Call inside a write transaction. Safe when the transaction runs again (writeTx on PostgreSQL):
   * the index counter and the address row roll back together, and the address of an index is the
   * same whenever it is derived.
   */
  async allocate(trx: Tx, merchantId: string, externalUserId: string | null, now: string): Promise<DepositAddressRow> {
    const chain = await this.chainFor(trx);
    if (!chain)
      throw new AppError('service_unavailable', 'The wallet is not initialised; the operator must run `paygate init`');
    let index: number | null;
    let address: string | null;
    do {
      index = await takeNextIndex(trx, this.indexLimit);
      if (index === null) throw new AppError('addresses_exhausted', 'No deposit address indexes are left');
      address = chain.addressAt(index); // null: an index BIP32 makes invalid, skipped for the next one
    } while (address === null);
    const row: DepositAddressRow = {
      address,
      derivation_index: index,
      merchant_id: merchantId,
      external_user_id: externalUserId,
      created_at: now,
    };
    await insertDepositAddress(trx, row);
    return row;
  }
}

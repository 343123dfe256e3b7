/**
 * Finds the transfers into watched addresses in scanned blocks, without touching the database:
 * native TRX `TransferContract`s whose transaction says `contractRet: SUCCESS`, and TRC20
 * `Transfer` logs emitted by a catalog token contract in transactions whose receipt says SUCCESS
 * (a look-alike token, a reverted call or a missing answer credits nothing). Matching compares
 * hex addresses so a block's hundreds of unrelated transactions cost no base58 conversion.
 */
import type { AssetCatalog } from '../assets/catalog.js';
import { fromHexAddress, toHexAddress } from '../chain/address.js';
import type { ChainBlock, ChainTx, TxInfo } from '../chain/client.js';
import { TRANSFER_TOPIC } from '../chain/trc20.js';

export interface WatchedAddress {
  address: string;
  merchantId: string;
  externalUserId: string | null;
}

export interface MatchedTransfer {
  watched: WatchedAddress;
  asset: string;
  decimals: number;
  amount: bigint;
  txHash: string;
  /** -1 for native TRX; the log's position in its transaction for TRC20. */
  logIndex: number;
  from: string | null;
  block: ChainBlock;
}

export class Watchlist {
  /** `41…` hex → address. */
  readonly byHex = new Map<string, WatchedAddress>();
  /** The hot wallet: its TRX transfers to deposit addresses are the sweeper's fee top-ups. */
  hotHex: string | null = null;

  add(a: WatchedAddress): void {
    this.byHex.set(toHexAddress(a.address), a);
  }

  setHot(address: string | null): void {
    this.hotHex = address ? toHexAddress(address) : null;
  }
}

export class TokenSet {
  /** 20-byte hex without `41` (as logs print the emitter) → asset. */
  private readonly byLogAddress = new Map<string, { code: string; decimals: number }>();
  readonly native: { code: string; decimals: number } | null;

  constructor(catalog: AssetCatalog) {
    let native: { code: string; decimals: number } | null = null;
    for (const a of catalog.assets) {
      if (a.type === 'native') native = { code: a.code, decimals: a.decimals };
      else if (a.contract) this.byLogAddress.set(toHexAddress(a.contract).slice(2), { code: a.code, decimals: a.decimals });
    }
    this.native = native;
  }

  tokenOfLog(address: string): { code: string; decimals: number } | undefined {
    return this.byLogAddress.get(address.toLowerCase().replace(/^0x/, '').replace(/^41(?=[0-9a-f]{40}$)/, ''));
  }
}

const ownerHex = (tx: ChainTx): string => String((tx.raw.raw_data.contract[0]?.parameter.value as { owner_address?: unknown })?.owner_address ?? '').toLowerCase();

/** Whether a block needs its transaction infos fetched: it holds a contract call that succeeded. */
export function needsInfos(block: ChainBlock): boolean {
  return block.transactions.some((t) => t.contractType === 'TriggerSmartContract' && t.contractRet === 'SUCCESS');
}

export function matchBlock(block: ChainBlock, infos: TxInfo[] | null, watch: Watchlist, tokens: TokenSet): MatchedTransfer[] {
  const out: MatchedTransfer[] = [];
  const native = tokens.native;
  for (const tx of block.transactions) {
    if (tx.contractType !== 'TransferContract' || tx.contractRet !== 'SUCCESS' || !native) continue;
    const watched = tx.toHex ? watch.byHex.get(tx.toHex) : undefined;
    if (!watched || !tx.amount || tx.amount <= 0n) continue;
    if (watch.hotHex !== null && ownerHex(tx) === watch.hotHex) continue;
    out.push({ watched, asset: native.code, decimals: native.decimals, amount: tx.amount, txHash: tx.txID, logIndex: -1, from: tx.owner, block });
  }
  if (!infos) return out;
  let succeeded: Set<string> | null = null;
  for (const info of infos) {
    if (info.result !== 'SUCCESS' || info.logs.length === 0 || info.blockNumber !== block.number) continue;
    for (const log of info.logs) {
      const topics = log.topics;
      if (topics.length !== 3 || topics[0]?.toLowerCase() !== TRANSFER_TOPIC) continue;
      const token = tokens.tokenOfLog(log.address);
      if (!token) continue;
      const watched = watch.byHex.get(`41${String(topics[2]).slice(-40).toLowerCase()}`);
      if (!watched) continue;
      const data = String(log.data ?? '').replace(/^0x/, '');
      if (!/^[0-9a-fA-F]{64}/.test(data)) continue;
      const amount = BigInt(`0x${data.slice(0, 64)}`);
      if (amount <= 0n) continue;
      // The block's own record of the transaction must say SUCCESS too (both answers must agree).
      succeeded ??= new Set(block.transactions.filter((t) => t.contractRet === 'SUCCESS').map((t) => t.txID));
      if (!succeeded.has(info.txID)) continue;
      let from: string | null = null;
      try {
        from = fromHexAddress(`41${String(topics[1]).slice(-40)}`);
      } catch {
        from = null;
      }
      out.push({ watched, asset: token.code, decimals: token.decimals, amount, txHash: info.txID, logIndex: log.index, from, block });
    }
  }
  return out;
}

/**
 * Finds the transfers into watched addresses in scanned blocks, without touching the database:
 * native TRX `TransferContract`s whose transaction says `contractRet: SUCCESS`, and TRC20
 * `Transfer` logs emitted by a catalog token contract in transactions whose receipt says SUCCESS
 * (a look-alike token, a reverted call or a missing answer credits nothing). Matching compares
 * hex addresses so a block's hundreds of unrelated transactions cost no base58 conversion.
 */
import type { AssetCatalog } from '../assets/catalog.js';
import { fromHexAddress, toHexAddress } from '../chain/address.js';
import type { ChainBlockHeader, ScanBlock, ScanTransferLog } from '../chain/client.js';
import type { FoundTransfer } from '../deposits/service.js';

export interface WatchedAddress {
  address: string;
  merchantId: string;
  externalUserId: string | null;
}

/**
 * A transfer found in a scanned block: the deposit fields of FoundTransfer (logIndex -1 for native
 * TRX), with the watched address and the block as the node gave them.
 */
export type MatchedTransfer = Pick<FoundTransfer, 'asset' | 'decimals' | 'amount' | 'txHash' | 'logIndex' | 'from'> & {
  watched: WatchedAddress;
  block: ChainBlockHeader;
};

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

/** Whether a block needs its transaction infos fetched: it holds a contract call that succeeded. */
export function needsInfos(block: ScanBlock): boolean {
  return block.calls.length > 0;
}

/** A base58 address from `41…` hex; null when malformed. */
function base58OrNull(hex: string): string | null {
  try {
    return fromHexAddress(hex);
  } catch {
    return null;
  }
}

export function matchBlock(block: ScanBlock, logs: ScanTransferLog[] | null, watch: Watchlist, tokens: TokenSet): MatchedTransfer[] {
  const out: MatchedTransfer[] = [];
  const native = tokens.native;
  for (const tx of native ? block.transfers : []) {
    const watched = watch.byHex.get(tx.toHex);
    if (!watched || tx.amount <= 0n) continue;
    if (watch.hotHex !== null && tx.ownerHex === watch.hotHex) continue;
    out.push({ watched, asset: native!.code, decimals: native!.decimals, amount: tx.amount, txHash: tx.txID, logIndex: -1, from: base58OrNull(tx.ownerHex), block });
  }
  if (!logs) return out;
  let succeeded: Set<string> | null = null;
  // Each log is a Transfer with three topics in a transaction whose receipt says SUCCESS.
  for (const log of logs) {
    if (log.blockNumber !== block.number) continue;
    const token = tokens.tokenOfLog(log.address);
    if (!token) continue;
    const watched = watch.byHex.get(`41${log.to.slice(-40).toLowerCase()}`);
    if (!watched) continue;
    const data = log.data.replace(/^0x/, '');
    if (!/^[0-9a-fA-F]{64}/.test(data)) continue;
    const amount = BigInt(`0x${data.slice(0, 64)}`);
    if (amount <= 0n) continue;
    // The block's own record of the transaction must say SUCCESS too (both answers must agree).
    succeeded ??= new Set(block.calls);
    if (!succeeded.has(log.txID)) continue;
    out.push({ watched, asset: token.code, decimals: token.decimals, amount, txHash: log.txID, logIndex: log.index, from: base58OrNull(`41${log.from.slice(-40)}`), block });
  }
  return out;
}

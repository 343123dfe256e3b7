/**
 * Finds the transfers into deposit addresses in scanned blocks, without touching the database:
 * native TRX `TransferContract`s whose transaction says `contractRet: SUCCESS`, and TRC20
 * `Transfer` logs emitted by a catalog token contract in transactions whose receipt says SUCCESS
 * (a look-alike token, a reverted call or a missing answer credits nothing). Matching compares hex
 * addresses so a block's hundreds of unrelated transactions cost no base58 conversion.
 *
 * In two passes: receiversOf() lists every receiver of a block's transfers, the watcher looks them
 * up among the deposit addresses (one indexed query per range), and matchBlock() applies every rule
 * to the transfers into the addresses found.
 */
import type { AssetCatalog } from '../assets/catalog.js';
import { fromHexAddress, toHexAddress } from '../chain/address.js';
import type { ChainBlockHeader, ScanBlock, ScanTransferLog } from '../chain/client.js';
import { UNREADABLE_AMOUNT } from '../chain/parse.js';
import type { FoundTransfer } from '../deposits/service.js';

export interface WatchedAddress {
  address: string;
  derivationIndex: number;
  /** Null for an address of a restore's derivation gap: handed to no one, its payments unattributed. */
  merchantId: string | null;
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

/** The deposit addresses among one scanned range's receivers, by `41…` hex, and the hot wallet's. */
export interface FoundAddresses {
  byHex: ReadonlyMap<string, WatchedAddress>;
  hotHex: string | null;
}

export class TokenSet {
  /** 20-byte hex without `41` (as logs print the emitter) → asset. */
  private readonly byLogAddress = new Map<string, { code: string; decimals: number }>();
  readonly native: { code: string; decimals: number } | null;

  constructor(catalog: AssetCatalog) {
    let native: { code: string; decimals: number } | null = null;
    for (const a of catalog.assets) {
      if (a.type === 'native') native = { code: a.code, decimals: a.decimals };
      else if (a.contract)
        this.byLogAddress.set(toHexAddress(a.contract).slice(2), { code: a.code, decimals: a.decimals });
    }
    this.native = native;
  }

  tokenOfLog(address: string): { code: string; decimals: number } | undefined {
    return this.byLogAddress.get(
      address
        .toLowerCase()
        .replace(/^0x/, '')
        .replace(/^41(?=[0-9a-f]{40}$)/, ''),
    );
  }
}

/** Whether a block needs its transaction infos fetched: it holds a contract call that succeeded. */
export function needsInfos(block: ScanBlock): boolean {
  return block.calls.length > 0;
}

/** A base58 address from `41…` hex; null when malformed. */
export function base58OrNull(hex: string): string | null {
  try {
    return fromHexAddress(hex);
  } catch {
    return null;
  }
}

/** The `41…` hex receiver of a Transfer log (the last 20 bytes of its topic), lower case. */
function receiverOfLog(log: ScanTransferLog): string {
  return `41${log.to.slice(-40).toLowerCase()}`;
}

/**
 * The `41…` hex receivers of a block's native transfers and of its catalog tokens' Transfer logs:
 * the deposit addresses among them are looked up. Never narrower than matchBlock's rules, which
 * then decide what counts.
 */
export function receiversOf(block: ScanBlock, logs: ScanTransferLog[] | null, tokens: TokenSet): string[] {
  const out = tokens.native ? block.transfers.map((tx) => tx.toHex) : [];
  for (const log of logs ?? []) if (tokens.tokenOfLog(log.address)) out.push(receiverOfLog(log));
  return out;
}

/**
 * The block's transfers into the deposit addresses found: with positive amounts, succeeded, not
 * the hot wallet's top-ups.
 */
export function matchBlock(
  block: ScanBlock,
  logs: ScanTransferLog[] | null,
  found: FoundAddresses,
  tokens: TokenSet,
): MatchedTransfer[] {
  const out: MatchedTransfer[] = [];
  const native = tokens.native;
  for (const tx of native ? block.transfers : []) {
    const watched = found.byHex.get(tx.toHex);
    if (watched === undefined || (tx.amount <= 0n && tx.amount !== UNREADABLE_AMOUNT)) continue;
    if (found.hotHex !== null && tx.ownerHex === found.hotHex) continue;
    // Never booked rounded, never skipped: the scan stops here, loudly, for the operator.
    if (tx.amount === UNREADABLE_AMOUNT)
      throw new Error(
        `TRX transfer ${tx.txID} into deposit address ${watched.address} in block ${block.number} has an amount beyond 2^53 sun that the node's JSON cannot carry exactly`,
      );
    out.push({
      watched,
      asset: native!.code,
      decimals: native!.decimals,
      amount: tx.amount,
      txHash: tx.txID,
      logIndex: -1,
      from: base58OrNull(tx.ownerHex),
      block,
    });
  }
  if (!logs) return out;
  let succeeded: Set<string> | null = null;
  // Each log is a Transfer with three topics in a transaction whose receipt says SUCCESS.
  for (const log of logs) {
    if (log.blockNumber !== block.number) continue;
    const token = tokens.tokenOfLog(log.address);
    if (!token) continue;
    const watched = found.byHex.get(receiverOfLog(log));
    if (watched === undefined) continue;
    const data = log.data.replace(/^0x/, '');
    // A catalog token's Transfer always carries its 32-byte amount: without it the answer is
    // broken, and the transfer into a deposit address may be a deposit (the scan asks again).
    if (!/^[0-9a-fA-F]{64}/.test(data))
      throw new Error(
        `node answered the ${token.code} Transfer log ${log.index} of ${log.txID} in block ${block.number} without its amount; asking again`,
      );
    const amount = BigInt(`0x${data.slice(0, 64)}`);
    if (amount <= 0n) continue;
    // The block's own record of the transaction must say SUCCESS too (both answers must agree).
    succeeded ??= new Set(block.calls);
    if (!succeeded.has(log.txID)) continue;
    out.push({
      watched,
      asset: token.code,
      decimals: token.decimals,
      amount,
      txHash: log.txID,
      logIndex: log.index,
      from: base58OrNull(`41${log.from.slice(-40)}`),
      block,
    });
  }
  return out;
}

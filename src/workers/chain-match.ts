/**
 * Finds the transfers into watched addresses in scanned blocks, without touching the database:
 * native TRX `TransferContract`s whose transaction says `contractRet: SUCCESS`, and TRC20
 * `Transfer` logs emitted by a catalog token contract in transactions whose receipt says SUCCESS
 * (a look-alike token, a reverted call or a missing answer credits nothing). Matching compares
 * hex addresses so a block's hundreds of unrelated transactions cost no base58 conversion.
 *
 * In two passes over the same rules: candidateAddresses() lists the receivers whose 48-bit prefix
 * is watched (address-prefixes.ts), the watcher confirms those against the database, and
 * matchBlock() then matches against the confirmed addresses only.
 */
import type { AssetCatalog } from '../assets/catalog.js';
import { addressBytes, fromHexAddress, toHexAddress } from '../chain/address.js';
import type { ChainBlockHeader, ScanBlock, ScanInfos, ScanTransferLog } from '../chain/client.js';
import { UNREADABLE_AMOUNT } from '../chain/parse.js';
import type { FoundTransfer } from '../deposits/service.js';
import { AddressPrefixes, prefixOfBytes, prefixOfHex } from './address-prefixes.js';

export interface WatchedAddress {
  address: string;
  derivationIndex: number;
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

/** Every deposit address handed out, as prefixes: which receivers may be ours. */
export class Watchlist {
  /** The hot wallet: its TRX transfers to deposit addresses are the sweeper's fee top-ups. */
  hotHex: string | null = null;

  /** `prefixes`: the directory's (addresses/directory.ts), which keeps them up to date. */
  constructor(readonly prefixes: AddressPrefixes = new AddressPrefixes()) {}

  /** Adds a base58 deposit address; throws on a malformed one, as a corrupt row must not pass unseen. */
  add(address: string, derivationIndex: number): void {
    this.prefixes.add(prefixOfBytes(addressBytes(address)), derivationIndex);
  }

  /** Whether a `41…` hex receiver may be a deposit address (confirm before crediting). */
  mayHold(hex: string): boolean {
    const p = prefixOfHex(hex);
    return p !== null && this.prefixes.has(p);
  }

  setHot(address: string | null): void {
    this.hotHex = address ? toHexAddress(address) : null;
  }
}

/** Deposit addresses confirmed in the database for one scanned range, by `41…` hex. */
export interface ConfirmedAddresses {
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
      else if (a.contract) this.byLogAddress.set(toHexAddress(a.contract).slice(2), { code: a.code, decimals: a.decimals });
    }
    this.native = native;
  }

  tokenOfLog(address: string): { code: string; decimals: number } | undefined {
    return this.byLogAddress.get(address.toLowerCase().replace(/^0x/, '').replace(/^41(?=[0-9a-f]{40}$)/, ''));
  }
}

/**
 * Whether a block may hold a transfer into a watched address, from the prefixes of its receivers
 * the parse worker listed (prune.ts packScanBlock, packTransferLogs): a block that may not is
 * skipped without building its transfers and logs. Every receiver the rules below look up has its
 * prefix listed (one without a prefix can match nothing), so this is never narrower than
 * candidateAddresses; unknown prefixes (a base58 receiver, a list missing) say true.
 */
export function mayPayWatched(block: ScanBlock, infos: ScanInfos | undefined, watch: Watchlist): boolean {
  const watched = (list: number[] | null | undefined) => !list || list.some((p) => watch.prefixes.has(p));
  return watched(block.receivers) || (infos !== undefined && watched(infos.receivers));
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

/** A transfer that passed every rule, into the receiver `lookup` answered `into` for. */
type TransferInto<W> = Omit<MatchedTransfer, 'watched'> & { into: W };

/**
 * The rules, shared by both passes so that a candidate list can never be narrower than a match:
 * the transfers of the block into receivers `lookup` knows, with positive amounts, succeeded,
 * not the hot wallet's top-ups.
 */
function transfersInto<W>(block: ScanBlock, logs: ScanTransferLog[] | null, tokens: TokenSet, hotHex: string | null, lookup: (hex: string) => W | undefined): TransferInto<W>[] {
  const out: TransferInto<W>[] = [];
  const native = tokens.native;
  for (const tx of native ? block.transfers : []) {
    const into = lookup(tx.toHex);
    if (into === undefined || (tx.amount <= 0n && tx.amount !== UNREADABLE_AMOUNT)) continue;
    if (hotHex !== null && tx.ownerHex === hotHex) continue;
    out.push({ into, asset: native!.code, decimals: native!.decimals, amount: tx.amount, txHash: tx.txID, logIndex: -1, from: base58OrNull(tx.ownerHex), block });
  }
  if (!logs) return out;
  let succeeded: Set<string> | null = null;
  // Each log is a Transfer with three topics in a transaction whose receipt says SUCCESS.
  for (const log of logs) {
    if (log.blockNumber !== block.number) continue;
    const token = tokens.tokenOfLog(log.address);
    if (!token) continue;
    const into = lookup(`41${log.to.slice(-40).toLowerCase()}`);
    if (into === undefined) continue;
    const data = log.data.replace(/^0x/, '');
    // A catalog token's Transfer always carries its 32-byte amount: without it the answer is
    // broken, and the transfer into a watched address may be a deposit (the scan asks again).
    if (!/^[0-9a-fA-F]{64}/.test(data)) throw new Error(`node answered the ${token.code} Transfer log ${log.index} of ${log.txID} in block ${block.number} without its amount; asking again`);
    const amount = BigInt(`0x${data.slice(0, 64)}`);
    if (amount <= 0n) continue;
    // The block's own record of the transaction must say SUCCESS too (both answers must agree).
    succeeded ??= new Set(block.calls);
    if (!succeeded.has(log.txID)) continue;
    out.push({ into, asset: token.code, decimals: token.decimals, amount, txHash: log.txID, logIndex: log.index, from: base58OrNull(`41${log.from.slice(-40)}`), block });
  }
  return out;
}

/** The `41…` hex receivers of a block's transfers that may be deposit addresses (prefix hits). */
export function candidateAddresses(block: ScanBlock, logs: ScanTransferLog[] | null, watch: Watchlist, tokens: TokenSet): string[] {
  const hits = transfersInto(block, logs, tokens, watch.hotHex, (hex) => (watch.mayHold(hex) ? hex : undefined));
  return hits.map((t) => t.into);
}

/** The block's transfers into confirmed deposit addresses. */
export function matchBlock(block: ScanBlock, logs: ScanTransferLog[] | null, watched: ConfirmedAddresses, tokens: TokenSet): MatchedTransfer[] {
  return transfersInto(block, logs, tokens, watched.hotHex, (hex) => watched.byHex.get(hex)).map(({ into, ...t }) => {
    // Never booked rounded, never skipped: the scan stops here, loudly, for the operator.
    if (t.amount === UNREADABLE_AMOUNT) throw new Error(`TRX transfer ${t.txHash} into deposit address ${into.address} in block ${block.number} has an amount beyond 2^53 sun that the node's JSON cannot carry exactly`);
    return { ...t, watched: into };
  });
}

/**
 * What the chain holds at the end of the soak, read from the devnet's blocks directly (not through
 * paygate's client or watcher, whose work it checks): every transfer of TRX or a devnet token in
 * the final chain, with its result. Kept as plain JSON so the checks can also run on a stored copy.
 */
import { TronWeb } from 'tronweb';
import { decodeTransferCall } from '../../../src/chain/trc20.js';
import { DEVNET_TOKENS, type Devnet } from '../../../src/devnet/index.js';
import type { Received } from './receiver.js';
import type { Payment } from './traffic.js';

export interface ChainTransfer {
  txid: string;
  block: number;
  /** base58 */
  from: string;
  to: string;
  asset: string;
  /** base units, decimal text */
  amount: string;
  success: boolean;
}

export interface SoakFacts {
  hotAddress: string;
  payoutTargets: string[];
  transfers: ChainTransfer[];
  payments: { txid: string; to: string; asset: string; amount: string }[];
  received: Received[];
  refusedWebhooks: string[];
}

const base58 = (hex: string) =>
  TronWeb.address.fromHex(hex.startsWith('41') ? hex : `41${hex.replace(/^0x/, '')}`) as string;

export function chainTransfers(devnet: Devnet): ChainTransfer[] {
  const tokens = new Map(DEVNET_TOKENS.map((t) => [t.hex.toLowerCase(), t.asset]));
  const out: ChainTransfer[] = [];
  for (const b of devnet.control.chain.blocks) {
    for (const t of b.txs) {
      const c = t.tx.raw_data.contract[0];
      const v = (c?.parameter.value ?? {}) as Record<string, unknown>;
      const ret = t.tx.ret?.[0]?.contractRet ?? '';
      const base = { txid: t.tx.txID, block: b.number, from: base58(String(v.owner_address ?? '')) };
      if (c?.type === 'TransferContract') {
        out.push({
          ...base,
          to: base58(String(v.to_address)),
          asset: 'TRX_TRON',
          amount: String(v.amount),
          success: ret === 'SUCCESS',
        });
      } else if (c?.type === 'TriggerSmartContract') {
        const asset = tokens.get(String(v.contract_address ?? '').toLowerCase());
        const call = decodeTransferCall(String(v.data ?? ''));
        const receipt = (t.info as { receipt?: { result?: string } } | undefined)?.receipt?.result;
        if (asset && call)
          out.push({
            ...base,
            to: base58(call.to),
            asset,
            amount: call.amount.toString(),
            success: ret === 'SUCCESS' && (receipt ?? 'SUCCESS') === 'SUCCESS',
          });
      }
    }
  }
  return out;
}

export function collectFacts(
  devnet: Devnet,
  world: { hotAddress: string; payoutTargets: string[] },
  payments: Payment[],
  received: Received[],
  refused: string[],
): SoakFacts {
  return {
    hotAddress: world.hotAddress,
    payoutTargets: world.payoutTargets,
    transfers: chainTransfers(devnet),
    payments: payments.map((p) => ({ ...p, amount: p.amount.toString() })),
    received: [...received],
    refusedWebhooks: [...refused],
  };
}

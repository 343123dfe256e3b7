/**
 * `paygate devnet pay`: a customer payment on a running devnet, through its control API (signed
 * there by a funded test account). Amounts are read with the devnet catalog's decimals.
 */
import { loadCatalog } from '../assets/catalog.js';
import { isTronAddress } from '../chain/address.js';
import { AppError } from '../errors.js';
import { AmountError, parseAmount } from '../money.js';

export const DEVNET_PAY_ASSETS = ['USDT_TRON', 'USDC_TRON', 'USDD_TRON', 'TRX_TRON'] as const;

export interface DevnetPayment {
  url: string;
  to: string;
  asset: string;
  amount: string;
  from: number;
  mine: boolean;
}

export interface DevnetPayResult {
  txid: string;
  from: string;
  to: string;
  asset: string;
  amount: string;
  base_units: string;
}

export async function payOnDevnet(p: DevnetPayment): Promise<DevnetPayResult> {
  if (!isTronAddress(p.to)) throw new AppError('invalid_argument', `not a TRON address: ${p.to}`);
  const asset = loadCatalog('devnet').get(p.asset);
  if (!asset) throw new AppError('asset_not_found', `Asset ${p.asset} is not in the devnet catalog`);
  let baseUnits: bigint;
  try {
    baseUnits = parseAmount(p.amount, asset.decimals, asset.maxUnits);
  } catch (e) {
    throw new AppError('invalid_argument', `amount ${(e as AmountError).message}`);
  }
  let res: Response;
  try {
    res = await fetch(`${p.url.replace(/\/+$/, '')}/devnet/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to: p.to, asset: asset.code, amount: baseUnits.toString(), from: p.from, mine: p.mine }),
      signal: AbortSignal.timeout(15_000),
    });
  } catch (e) {
    throw new AppError(
      'service_unavailable',
      `devnet at ${p.url} is not reachable: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  const body = (await res.json().catch(() => ({}))) as { txid?: string; from?: string; error?: string };
  if (!res.ok || !body.txid)
    throw new AppError('invalid_state', `devnet refused the payment: ${body.error ?? `HTTP ${res.status}`}`);
  return {
    txid: body.txid,
    from: body.from ?? '',
    to: p.to,
    asset: asset.code,
    amount: p.amount,
    base_units: baseUnits.toString(),
  };
}

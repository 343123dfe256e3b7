/**
 * The asset catalog shipped in config/assets.<network>.json: code, contract, decimals, minimum
 * deposit, default flags, and which flags the operator may not switch (`locked`). It is validated
 * when loaded; a broken catalog stops the program instead of mis-pricing money.
 */
import { readFileSync } from 'node:fs';
import { isTronAddress } from '../chain/address.js';
import type { TronNetwork } from '../config.js';
import { AmountError, MAX_NATIVE_UNITS, MAX_TRC20_UNITS, parseAmount } from '../money.js';
import { configFile } from '../paths.js';

export type AssetFlag = 'payments' | 'payouts';
export const ASSET_FLAGS: readonly AssetFlag[] = ['payments', 'payouts'];
const ASSET_CODE = /^[A-Z0-9]+_[A-Z0-9]+$/;

export interface CatalogAsset {
  code: string;
  symbol: string;
  name: string;
  type: 'trc20' | 'native';
  /** base58 contract of a TRC20 token; null for TRX. */
  contract: string | null;
  decimals: number;
  /**
   * One token is one dollar (docs/adr/0063-page-invoices.md): the asset can be offered for a price
   * in dollars on the payment page. Absent in a catalog file: false.
   */
  usdPegged: boolean;
  /** In base units. */
  minimumDeposit: bigint;
  /** The largest amount in base units the chain can move (int64 sun, uint256 token units). */
  maxUnits: bigint;
  payments: boolean;
  payouts: boolean;
  receiveOnly: boolean;
  locked: ReadonlySet<AssetFlag>;
  /** Default sweep threshold in base units (`sweep_threshold`; the operator may override it). */
  sweepThreshold?: bigint;
}

export class AssetCatalog {
  private readonly byCode: Map<string, CatalogAsset>;
  constructor(
    readonly network: TronNetwork,
    readonly assets: readonly CatalogAsset[],
  ) {
    this.byCode = new Map(assets.map((a) => [a.code, a]));
  }
  get(code: string): CatalogAsset | undefined {
    return this.byCode.get(code);
  }
}

export class CatalogError extends Error {}

export function catalogPath(network: TronNetwork): string {
  return configFile(`assets.${network}.json`);
}

function parseEntry(raw: Record<string, unknown>, where: string): CatalogAsset {
  const fail = (msg: string): never => {
    throw new CatalogError(`${where}: ${msg}`);
  };
  const code =
    typeof raw.code === 'string' && ASSET_CODE.test(raw.code) ? raw.code : fail('code must look like USDT_TRON');
  const decimals =
    Number.isInteger(raw.decimals) && (raw.decimals as number) >= 0 && (raw.decimals as number) <= 30
      ? (raw.decimals as number)
      : fail('decimals must be 0..30');
  const type = raw.type === 'trc20' || raw.type === 'native' ? raw.type : fail('type must be trc20 or native');
  const contract = raw.contract ?? null;
  if (type === 'trc20' && !(typeof contract === 'string' && isTronAddress(contract)))
    fail('a trc20 asset needs a valid base58 contract');
  if (type === 'native' && contract !== null) fail('a native asset has no contract');
  let minimumDeposit = 0n;
  try {
    minimumDeposit = parseAmount(String(raw.minimum_deposit), decimals);
  } catch (e) {
    fail(`minimum_deposit ${(e as AmountError).message}`);
  }
  let sweepThreshold: bigint | undefined;
  if (raw.sweep_threshold !== undefined) {
    try {
      sweepThreshold = parseAmount(String(raw.sweep_threshold), decimals);
    } catch (e) {
      fail(`sweep_threshold ${(e as AmountError).message}`);
    }
  }
  const bool = (k: string) => (typeof raw[k] === 'boolean' ? (raw[k] as boolean) : fail(`${k} must be true or false`));
  const locked = Array.isArray(raw.locked) ? raw.locked : fail('locked must be an array');
  for (const f of locked) if (!ASSET_FLAGS.includes(f as AssetFlag)) fail(`unknown locked flag ${String(f)}`);
  const receiveOnly = bool('receive_only');
  const usdPegged = raw.usd_pegged === undefined ? false : bool('usd_pegged');
  if (usdPegged && type === 'native') fail('a native asset is not pegged to the dollar');
  const payouts = bool('payouts');
  if (receiveOnly && (payouts || !locked.includes('payouts')))
    fail('a receive_only asset has payouts false and locked');
  return {
    code,
    symbol: typeof raw.symbol === 'string' ? raw.symbol : fail('symbol missing'),
    name: typeof raw.name === 'string' ? raw.name : fail('name missing'),
    type,
    contract: contract as string | null,
    decimals,
    usdPegged,
    minimumDeposit,
    maxUnits: type === 'native' ? MAX_NATIVE_UNITS : MAX_TRC20_UNITS,
    payments: bool('payments'),
    payouts,
    receiveOnly,
    locked: new Set(locked as AssetFlag[]),
    ...(sweepThreshold === undefined ? {} : { sweepThreshold }),
  };
}

export function parseCatalog(network: TronNetwork, json: unknown, where = `assets.${network}.json`): AssetCatalog {
  const doc = json as { network?: unknown; assets?: unknown };
  if (doc?.network !== network) throw new CatalogError(`${where}: network must be "${network}"`);
  if (!Array.isArray(doc.assets) || doc.assets.length === 0)
    throw new CatalogError(`${where}: assets must be a non-empty array`);
  const assets = doc.assets.map((a, i) => parseEntry(a as Record<string, unknown>, `${where} assets[${i}]`));
  const codes = new Set(assets.map((a) => a.code));
  if (codes.size !== assets.length) throw new CatalogError(`${where}: duplicate asset code`);
  return new AssetCatalog(network, assets);
}

const loaded = new Map<TronNetwork, AssetCatalog>();

/** The catalog of a network, read once per process. */
export function loadCatalog(network: TronNetwork): AssetCatalog {
  let c = loaded.get(network);
  if (!c) {
    const file = catalogPath(network);
    c = parseCatalog(network, JSON.parse(readFileSync(file, 'utf8')), file);
    loaded.set(network, c);
  }
  return c;
}

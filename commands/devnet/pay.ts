import { Args, Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { isTronAddress } from '../../src/chain/address.js';
import { AppError } from '../../src/errors.js';
import { parseUnits, tokenByAsset } from '../../src/devnet/index.js';

interface PayResult {
  txid: string;
  from: string;
  to: string;
  asset: string;
  amount: string;
  base_units: string;
}

const ASSETS = ['USDT_TRON', 'USDC_TRON', 'USDD_TRON', 'TRX_TRON'] as const;

export default class DevnetPay extends PaygateCommand {
  static override description = 'Send a customer payment on a running devnet, signed by one of its funded test accounts';

  static override args = {
    address: Args.string({ description: 'receiving TRON address (T…)', required: true }),
    amount: Args.string({ description: 'amount in whole units of the asset, e.g. 12.5', required: true }),
  };

  static override flags = {
    asset: Flags.string({ description: 'asset to pay', options: [...ASSETS], default: 'USDT_TRON' }),
    url: Flags.string({ description: 'devnet URL', default: 'http://127.0.0.1:8090' }),
    from: Flags.integer({ description: 'index of the funded account that pays', default: 0, min: 0 }),
    mine: Flags.boolean({ description: 'also produce a block right away (useful with --block-time 0)', default: false }),
  };

  async run(): Promise<PayResult> {
    const { args, flags } = await this.parse(DevnetPay);
    if (!isTronAddress(args.address)) throw new AppError('invalid_argument', `not a TRON address: ${args.address}`);
    const decimals = flags.asset === 'TRX_TRON' ? 6 : (tokenByAsset(flags.asset)?.decimals ?? 6);
    let baseUnits: bigint;
    try {
      baseUnits = parseUnits(args.amount, decimals);
    } catch (e) {
      throw new AppError('invalid_argument', e instanceof Error ? e.message : String(e));
    }
    if (baseUnits <= 0n) throw new AppError('invalid_argument', 'amount must be greater than 0');
    let res: Response;
    try {
      res = await fetch(`${flags.url.replace(/\/+$/, '')}/devnet/pay`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ to: args.address, asset: flags.asset, amount: baseUnits.toString(), from: flags.from, mine: flags.mine }),
        signal: AbortSignal.timeout(15_000),
      });
    } catch (e) {
      throw new AppError('service_unavailable', `devnet at ${flags.url} is not reachable: ${e instanceof Error ? e.message : String(e)}`);
    }
    const body = (await res.json().catch(() => ({}))) as { txid?: string; from?: string; error?: string };
    if (!res.ok || !body.txid) throw new AppError('invalid_state', `devnet refused the payment: ${body.error ?? `HTTP ${res.status}`}`);
    this.say(`Paid ${args.amount} ${flags.asset} to ${args.address} from ${body.from}: txid ${body.txid}`);
    return { txid: body.txid, from: body.from ?? '', to: args.address, asset: flags.asset, amount: args.amount, base_units: baseUnits.toString() };
  }
}

import { Args, Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { DEVNET_PAY_ASSETS, payOnDevnet, type DevnetPayResult } from '../../src/devnet/pay.js';

export default class DevnetPay extends PaygateCommand {
  static override description =
    'Send a customer payment on a running devnet, signed by one of its funded test accounts';
  static override examples = [
    '<%= config.bin %> devnet pay TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH 12.5 --asset USDT_TRON --url http://127.0.0.1:8090',
  ];

  static override args = {
    address: Args.string({ description: 'receiving TRON address (T…)', required: true }),
    amount: Args.string({ description: 'amount in whole units of the asset, e.g. 12.5', required: true }),
  };

  static override flags = {
    asset: Flags.string({ description: 'asset to pay', options: [...DEVNET_PAY_ASSETS], default: 'USDT_TRON' }),
    url: Flags.string({ description: 'devnet URL', default: 'http://127.0.0.1:8090' }),
    from: Flags.integer({ description: 'index of the funded account that pays', default: 0, min: 0 }),
    mine: Flags.boolean({
      description: 'also produce a block right away (useful with --block-time 0)',
      default: false,
    }),
  };

  async run(): Promise<DevnetPayResult> {
    const { args, flags } = await this.parse(DevnetPay);
    const r = await payOnDevnet({
      url: flags.url,
      to: args.address,
      asset: flags.asset,
      amount: args.amount,
      from: flags.from,
      mine: flags.mine,
    });
    this.say(`Paid ${r.amount} ${r.asset} to ${r.to} from ${r.from}: txid ${r.txid}`);
    return r;
  }
}

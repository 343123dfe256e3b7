import { PaygateCommand } from '../src/cli/base.js';
import { table } from '../src/cli/format.js';
import { loadCatalog } from '../src/assets/catalog.js';
import { fullNodeUrl } from '../src/chain/networks.js';
import { createTronClient } from '../src/chain/tronweb-client.js';
import { checkReserves, type ReservesReport } from '../src/reserves/service.js';

export default class Reserves extends PaygateCommand {
  static override description =
    'Compare, per asset, what the chain holds for the service (hot wallet and deposit addresses, read from the node) with what the books owe (merchant balances, uncredited deposits) and what the service earned (fees less network costs); records the check (docs/operations/month-end.md, "Month-end")';
  static override examples = ['<%= config.bin %> reserves', '<%= config.bin %> reserves --json'];

  async run(): Promise<ReservesReport> {
    await this.parse(Reserves);
    const ctx = await this.context();
    const chain = createTronClient({ fullHost: fullNodeUrl(ctx.config), apiKey: ctx.config.tronApiKey });
    try {
      const report = await checkReserves({
        db: ctx.database.db,
        reads: ctx.database.scans,
        chain,
        catalog: loadCatalog(ctx.config.tronNetwork),
        clock: ctx.clock,
        network: ctx.config.tronNetwork,
      });
      this.say(
        `Reserves at ${report.checked_at}: hot wallet ${report.hot_wallet}, ${report.addresses_read} deposit address balance(s) read; ${report.covered ? 'every asset covered' : 'NOT COVERED: holdings below liabilities'}\n\n` +
          table(
            report.assets.map((a) => ({
              asset: a.asset,
              holdings: a.holdings.total,
              liabilities: a.liabilities.total,
              earned: a.earned.total,
              expected: a.expected,
              difference: a.difference,
              in_flight: a.in_flight_payouts,
              uncovered: a.uncovered,
            })),
            ['asset', 'holdings', 'liabilities', 'earned', 'expected', 'difference', 'in_flight', 'uncovered'],
          ) +
          '\n\nParts:\n' +
          table(
            report.assets.map((a) => ({
              asset: a.asset,
              hot_wallet: a.holdings.hot_wallet,
              staked: a.holdings.hot_wallet_staked,
              deposit_addresses: a.holdings.deposit_addresses,
              gap_addresses: a.holdings.unattributed_addresses,
              merchant_balances: a.liabilities.merchant_balances,
              uncredited: a.liabilities.uncredited_deposits,
              unattributed: a.liabilities.unattributed_deposits,
              receive_fees: a.earned.receive_fees,
              payout_fees: a.earned.payout_fees,
              network_costs: a.earned.network_costs,
            })),
            [
              'asset',
              'hot_wallet',
              'staked',
              'deposit_addresses',
              'gap_addresses',
              'merchant_balances',
              'uncredited',
              'unattributed',
              'receive_fees',
              'payout_fees',
              'network_costs',
            ],
          ),
      );
      return report;
    } finally {
      await chain.close?.();
    }
  }
}

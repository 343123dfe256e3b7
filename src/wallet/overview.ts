/**
 * `paygate wallet show` and the console's `GET /admin/v1/wallet`: the wallet's public half, the
 * treasury (hot wallet balances from the node, what deposit addresses still hold), and the payouts
 * the worker holds back with their reasons. No passphrase needed.
 */
import type { AssetCatalog } from '../assets/catalog.js';
import type { TronClient } from '../chain/client.js';
import type { Db } from '../db/database.js';
import { waitingPayouts, type WaitingPayout } from '../payouts/worker/store.js';
import { treasurySummary, type TreasuryView } from '../sweeper/summary.js';
import { walletSummary, type WalletSummary } from './service.js';

export type WalletOverview = WalletSummary & TreasuryView & { payouts_waiting: WaitingPayout[] };

export async function walletOverview(db: Db, chain: TronClient, catalog: AssetCatalog): Promise<WalletOverview> {
  const s = await walletSummary(db);
  const treasury = await treasurySummary(db, chain, catalog, s.hot_address);
  return { ...s, ...treasury, payouts_waiting: await waitingPayouts(db) };
}

/** The console's wallet: `wallet show`, `wallet limit`, `wallet transfers`, `wallet transfer acknowledge`, `sweep`. */
import { toPage } from '../../http/pagination.js';
import type { Services } from '../../services.js';
import { setHotWalletLimit } from '../../payouts/worker/limits.js';
import { requestSweep, sweepRequestView } from '../../sweeper/requests.js';
import { walletOverview } from '../overview.js';
import { acknowledgeTransfer, listHotWalletTransfers, transferKey } from '../transfers.js';
import { actorOf, type ConsoleServer } from '../../operators/context.js';
import { pageLimit, pageRequest } from '../../operators/paging.js';
import { bodyErrors, errors, Page } from '../../operators/schemas/common.js';
import {
  AcknowledgeBody,
  AcknowledgedSchema,
  HotWalletTransferSchema,
  SweepBody,
  SweepRequestSchema,
  TransferListQuery,
  TransferParams,
  WalletLimitBody,
  WalletLimitParams,
  WalletLimitSchema,
  WalletSchema,
} from '../../operators/schemas/wallet.js';

const tags = ['wallet'];

export async function walletRoutes(app: ConsoleServer, s: Services): Promise<void> {
  app.get(
    '/admin/v1/wallet',
    {
      schema: {
        operationId: 'getWallet',
        tags,
        summary:
          'The hot wallet (balances, energy and bandwidth from the node), the deposit xpub, deposit addresses in use and what they hold, payouts waiting (wallet show)',
        description: '409 invalid_state before paygate init.',
        response: { 200: WalletSchema, ...errors(409) },
      },
    },
    async (req) => {
      const wallet = await walletOverview(s.db, s.chain, s.catalog);
      // The xpub names every merchant's deposit addresses: a dashboard's token has no need of it.
      return req.operator?.readOnly ? { ...wallet, deposit_xpub: null } : wallet;
    },
  );

  app.put(
    '/admin/v1/wallet/limits/:asset',
    {
      schema: {
        operationId: 'setHotWalletLimit',
        tags,
        summary:
          'Set what the payout worker may send from the hot wallet in an asset: per payout, per UTC day, and the fee_limit cap of a TRC20 transfer (wallet limit)',
        description: 'Only the fields given change; an empty body answers the limits in force.',
        params: WalletLimitParams,
        body: WalletLimitBody,
        response: { 200: WalletLimitSchema, ...bodyErrors(404) },
      },
    },
    async (req) => {
      const b = req.body;
      return setHotWalletLimit(s.db, s.clock, actorOf(req), s.catalog, req.params.asset, {
        ...(b.per_payout === undefined ? {} : { perPayout: b.per_payout }),
        ...(b.per_day === undefined ? {} : { perDay: b.per_day }),
        ...(b.fee_limit === undefined ? {} : { feeLimit: b.fee_limit }),
      });
    },
  );

  app.get(
    '/admin/v1/wallet/transfers',
    {
      schema: {
        operationId: 'listHotWalletTransfers',
        tags,
        summary:
          'Transfers out of the hot wallet, newest first, with what each one is: a payout, a sweep top-up, a payout found after a restore, acknowledged, or unknown (wallet transfers)',
        description:
          'unknown=true: only those paygate did not sign and nobody accounted for, the ones paygate_hot_wallet_unknown_transfers counts. Pages with limit and cursor.',
        querystring: TransferListQuery,
        response: { 200: Page(HotWalletTransferSchema, 'HotWalletTransferPage'), ...errors() },
      },
    },
    async (req) => {
      const q = req.query;
      const page = pageRequest(q);
      const rows = await listHotWalletTransfers(s.db, { unknown: q.unknown === true, ...page });
      return toPage(rows, pageLimit(q), transferKey);
    },
  );

  app.post(
    '/admin/v1/wallet/transfers/:txid/acknowledge',
    {
      schema: {
        operationId: 'acknowledgeHotWalletTransfer',
        tags,
        summary:
          'Say that a transfer out of the hot wallet paygate did not sign was the operator’s: it leaves the unknown count and is never matched to a held payout (wallet transfer acknowledge)',
        description:
          'Audited with the token id and the reason. A stolen key looks exactly like an unknown transfer: check before. 404 hot_wallet_transfer_not_found when no transfer out is recorded in the transaction; 409 invalid_state when paygate signed it (a payout, a sweep, a payout found after a restore), when it is already acknowledged, while the chain since a restore is being read, or when a payout held since a restore has its asset, address and amount.',
        params: TransferParams,
        body: AcknowledgeBody,
        response: { 200: AcknowledgedSchema, ...bodyErrors(404, 409) },
      },
    },
    async (req) => acknowledgeTransfer(s.db, s.clock, actorOf(req), req.params.txid, req.body.reason),
  );

  app.post(
    '/admin/v1/sweeps',
    {
      schema: {
        operationId: 'requestSweep',
        tags,
        summary: 'Sweep deposit addresses into the hot wallet now, whatever the thresholds (sweep)',
        description:
          'One address, or every address holding something. The running serve that holds the worker lease signs on its next sweeper tick (409 invalid_state when none does); the answer is the request as recorded.',
        body: SweepBody,
        response: { 202: SweepRequestSchema, ...bodyErrors(409) },
      },
    },
    async (req, reply) => {
      const id = await requestSweep(s.db, s.clock, actorOf(req), req.body.address ?? null);
      return reply.code(202).send(await sweepRequestView(s.db, s.catalog, id));
    },
  );
}

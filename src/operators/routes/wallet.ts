/** The console's wallet: `wallet show`, `wallet limit`, `sweep`. */
import type { Services } from '../../services.js';
import { setHotWalletLimit } from '../../payouts/worker/limits.js';
import { requestSweep, sweepRequestView } from '../../sweeper/requests.js';
import { walletOverview } from '../../wallet/overview.js';
import { actorOf, type ConsoleServer } from '../context.js';
import { bodyErrors, errors } from '../schemas/common.js';
import {
  SweepBody,
  SweepRequestSchema,
  WalletLimitBody,
  WalletLimitParams,
  WalletLimitSchema,
  WalletSchema,
} from '../schemas/wallet.js';

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
    async () => walletOverview(s.db, s.chain, s.catalog),
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

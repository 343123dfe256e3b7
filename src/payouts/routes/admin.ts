/** The console's payouts: `payout list [--unknown-on-chain]|approve|reject|cancel|halt|resume`. */
import { Type } from '@sinclair/typebox';
import { toPage } from '../../http/pagination.js';
import { listUnknownOnChain } from '../../restore/chain-reading.js';
import { setHalt } from '../halts.js';
import { confirmPayoutFromChain } from '../confirm.js';
import { approvePayout, cancelPayout, listPayouts, rejectPayout, showPayout } from '../operator.js';
import type { Services } from '../../services.js';
import { actorOf, type ConsoleServer } from '../../operators/context.js';
import { pageLimit, pageRequest } from '../../operators/paging.js';
import { bodyErrors, errors, Page } from '../../operators/schemas/common.js';
import {
  ApproveBody,
  ConfirmBody,
  HaltBody,
  HaltsSchema,
  OperatorPayoutSchema,
  PayoutListQuery,
  PayoutParams,
  ReasonBody,
  UnknownOnChainSchema,
} from '../../operators/schemas/payouts.js';

const tags = ['payouts'];

export async function payoutRoutes(app: ConsoleServer, s: Services): Promise<void> {
  app.get(
    '/admin/v1/payouts',
    {
      schema: {
        operationId: 'listPayouts',
        tags,
        summary: 'List payouts, newest first (payout list)',
        description: 'status=pending_review is the review queue.',
        querystring: PayoutListQuery,
        response: { 200: Page(OperatorPayoutSchema, 'OperatorPayoutPage'), ...errors(404) },
      },
    },
    async (req) => {
      const q = req.query;
      const page = pageRequest(q);
      const rows = await listPayouts(s.db, {
        ...(q.status ? { status: q.status } : {}),
        ...(q.merchant_id ? { merchantId: q.merchant_id.toLowerCase() } : {}),
        limit: page.limit,
        after: page.after,
      });
      return toPage(rows, pageLimit(q), (p) => ({ at: p.created_at, id: p.payout_id }));
    },
  );

  app.get(
    '/admin/v1/payouts/unknown-on-chain',
    {
      schema: {
        operationId: 'listPayoutsUnknownOnChain',
        tags,
        summary: 'What the chain reading since a restore left for the operator (payout list --unknown-on-chain)',
        description:
          "`reading` says whether the watcher is still reading the chain since the restore (`payout approve` of a held payout answers 409 invalid_state until it is done). `payouts`: the held payouts it did not settle, each with its candidate transfers out of the hot wallet (none, or several); `unknown_transfers`: the transfers out that paygate did not sign and no held payout claimed. Decide each payout with approve or cancel; acknowledge a transfer that was the operator's own with POST /admin/v1/wallet/transfers/{txid}/acknowledge.",
        response: { 200: UnknownOnChainSchema, ...errors() },
      },
    },
    async () => listUnknownOnChain(s.db),
  );

  app.get(
    '/admin/v1/payouts/:payout_id',
    {
      schema: {
        operationId: 'getPayout',
        tags,
        summary: 'One payout as the operator sees it (payout list)',
        description: 'With its review, wait, failure and hold reasons. 404 payout_not_found for an unknown id.',
        params: PayoutParams,
        response: { 200: OperatorPayoutSchema, ...errors(404) },
      },
    },
    async (req) => showPayout(s.db, req.params.payout_id),
  );

  app.post(
    '/admin/v1/payouts/:payout_id/approve',
    {
      schema: {
        operationId: 'approvePayout',
        tags,
        summary: 'Approve a payout in pending_review: it then waits for the payout worker (payout approve)',
        description:
          'Also lifts the hold on a held payout (after a restore, or matching a transfer out paygate did not sign), once the chain shows it was not sent: with candidate transfers, only with chain_checked true. 409 invalid_state in any other case. The body is optional.',
        params: PayoutParams,
        body: Type.Optional(ApproveBody),
        response: { 200: OperatorPayoutSchema, ...bodyErrors(404, 409, 422) },
      },
    },
    async (req) =>
      approvePayout(s.db, s.clock, actorOf(req), req.params.payout_id, {
        chainChecked: req.body?.chain_checked === true,
      }),
  );

  app.post(
    '/admin/v1/payouts/:payout_id/confirm',
    {
      schema: {
        operationId: 'confirmPayoutFromChain',
        tags,
        summary:
          'Settle a held payout the chain shows was paid by a transfer out paygate did not sign (payout confirm)',
        description:
          "Status, ledger, payout.confirmed event and the transfer's match commit together. 404 hot_wallet_transfer_not_found; 409 invalid_state when the transfer is not final or already accounted for, or the payout is not held; 422 transfer_mismatch for another asset, address or amount. A refusal changes nothing.",
        params: PayoutParams,
        body: ConfirmBody,
        response: { 200: OperatorPayoutSchema, ...bodyErrors(404, 409, 422) },
      },
    },
    async (req) => confirmPayoutFromChain(s.db, s.clock, actorOf(req), req.params.payout_id, req.body.txid),
  );

  app.post(
    '/admin/v1/payouts/:payout_id/reject',
    {
      schema: {
        operationId: 'rejectPayout',
        tags,
        summary: 'Reject a payout in pending_review and release its reservation (payout reject)',
        description: '409 invalid_state in any other status.',
        params: PayoutParams,
        body: ReasonBody,
        response: { 200: OperatorPayoutSchema, ...bodyErrors(404, 409) },
      },
    },
    async (req) => rejectPayout(s.db, s.clock, actorOf(req), req.params.payout_id, req.body.reason),
  );

  app.post(
    '/admin/v1/payouts/:payout_id/cancel',
    {
      schema: {
        operationId: 'cancelPayout',
        tags,
        summary: 'Stop a payout before it is signed: it becomes rejected, its reservation released (payout cancel)',
        description: 'From pending_review, approved or queued; 409 invalid_state once signing has begun.',
        params: PayoutParams,
        body: ReasonBody,
        response: { 200: OperatorPayoutSchema, ...bodyErrors(404, 409) },
      },
    },
    async (req) => cancelPayout(s.db, s.clock, actorOf(req), req.params.payout_id, req.body.reason),
  );

  for (const action of ['halt', 'resume'] as const) {
    app.post(
      `/admin/v1/payouts/${action}`,
      {
        schema: {
          operationId: `${action}Payouts`,
          tags,
          summary:
            action === 'halt'
              ? 'Halt payouts of one asset or of all: new requests get 503 payouts_halted; with worker, the payout worker stops too (payout halt)'
              : 'Lift a halt of the same scope; with worker the payout worker resumes too (payout resume)',
          description: 'The answer lists every halt in force after the change.',
          body: HaltBody,
          response: { 200: HaltsSchema, ...bodyErrors(404) },
        },
      },
      async (req) => {
        const b = req.body;
        const halts = await setHalt(s.db, s.clock, actorOf(req), s.catalog, {
          ...(b.asset === undefined ? {} : { asset: b.asset }),
          worker: b.worker === true,
          halted: action === 'halt',
          ...(b.reason === undefined ? {} : { reason: b.reason }),
        });
        return { halts };
      },
    );
  }
}

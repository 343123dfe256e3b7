/** A merchant's money on the console: `fee service`, `whitelist list|add|remove`, `ledger credit|debit`. */
import { Type } from '@sinclair/typebox';
import { setServiceFee } from '../../fees/service.js';
import { toPage } from '../../http/pagination.js';
import { creditMerchant, debitMerchant } from '../operator.js';
import type { Services } from '../../services.js';
import { addToWhitelist, listWhitelist, removeFromWhitelist } from '../../whitelist/service.js';
import { actorOf, type ConsoleServer } from '../../operators/context.js';
import { pageLimit, pageRequest } from '../../operators/paging.js';
import { bodyErrors, errors, MerchantParams, Page, PageQuery } from '../../operators/schemas/common.js';
import {
  AddWhitelistBody,
  AddWhitelistSchema,
  LedgerEntryBody,
  LedgerEntrySchema,
  ServiceFeeBody,
  ServiceFeeSchema,
  WhitelistEntryParams,
  WhitelistEntrySchema,
  WhitelistQuery,
} from '../../operators/schemas/money.js';

const tags = ['money'];

export async function moneyRoutes(app: ConsoleServer, s: Services): Promise<void> {
  app.post(
    '/admin/v1/merchants/:merchant_id/service-fees',
    {
      schema: {
        operationId: 'setServiceFee',
        tags,
        summary: "Set a merchant's service fee on invoices from now or from valid_from (fee service)",
        description:
          'A percent of the requested amount and who pays it. Above 3 percent needs confirm_high_rate: true (422 service_fee_confirmation_required); a valid_from already past is 422 service_fee_valid_from_in_past.',
        params: MerchantParams,
        body: ServiceFeeBody,
        response: { 201: ServiceFeeSchema, ...bodyErrors(404, 422) },
      },
    },
    async (req, reply) => {
      const b = req.body;
      const fee = await setServiceFee(s.db, s.clock, actorOf(req), req.params.merchant_id, {
        percent: b.percent,
        payer: b.payer,
        ...(b.valid_from === undefined ? {} : { validFrom: b.valid_from }),
        confirmHighRate: b.confirm_high_rate === true,
      });
      return reply.code(201).send(fee);
    },
  );

  app.get(
    '/admin/v1/merchants/:merchant_id/whitelist',
    {
      schema: {
        operationId: 'listWhitelist',
        tags,
        summary: "A merchant's whitelist entries, newest first, with when each becomes usable (whitelist list)",
        description:
          'Live entries only unless include_removed=true; asset narrows to one asset. Pages with limit and cursor.',
        params: MerchantParams,
        querystring: Type.Object({ ...WhitelistQuery.properties, ...PageQuery }, { additionalProperties: false }),
        response: { 200: Page(WhitelistEntrySchema, 'WhitelistEntryPage'), ...errors(404) },
      },
    },
    async (req) => {
      const q = req.query;
      const rows = await listWhitelist(s.db, s.clock, {
        merchantId: req.params.merchant_id,
        ...(q.asset ? { asset: q.asset } : {}),
        includeRemoved: q.include_removed === true,
        page: pageRequest(q),
      });
      return toPage(rows, pageLimit(q), (e) => ({ at: e.created_at, id: e.entry_id }));
    },
  );

  app.post(
    '/admin/v1/merchants/:merchant_id/whitelist',
    {
      schema: {
        operationId: 'addWhitelistEntry',
        tags,
        summary: "Put a payout address on a merchant's whitelist for an asset (whitelist add)",
        description:
          'Usable once the delay has passed. 201 for a new entry; 200 when the address was already listed: unchanged without `delay` or with its own delay, moved later by a longer one (`delay_extended`, audited); a shorter delay is 409 invalid_state (a safety delay is never shortened by adding again: remove the entry and add it again).',
        params: MerchantParams,
        body: AddWhitelistBody,
        response: { 200: AddWhitelistSchema, 201: AddWhitelistSchema, ...bodyErrors(404, 409, 422) },
      },
    },
    async (req, reply) => {
      const b = req.body;
      const r = await addToWhitelist(s.db, s.clock, actorOf(req), s.catalog, req.params.merchant_id, {
        asset: b.asset,
        address: b.address,
        ...(b.delay === undefined ? {} : { delay: b.delay }),
      });
      return reply.code(r.created ? 201 : 200).send(r);
    },
  );

  app.delete(
    '/admin/v1/merchants/:merchant_id/whitelist/:asset/:address',
    {
      schema: {
        operationId: 'removeWhitelistEntry',
        tags,
        summary: "Remove a payout address from a merchant's whitelist for an asset (whitelist remove)",
        description:
          'New payouts to it are refused and pending ones cannot be approved. 422 address_not_whitelisted when it is not listed.',
        params: WhitelistEntryParams,
        response: { 200: WhitelistEntrySchema, ...errors(404, 422) },
      },
    },
    async (req) =>
      removeFromWhitelist(s.db, s.clock, actorOf(req), s.catalog, req.params.merchant_id, {
        asset: req.params.asset,
        address: req.params.address,
      }),
  );

  app.post(
    '/admin/v1/merchants/:merchant_id/ledger-entries',
    {
      schema: {
        operationId: 'correctBalance',
        tags,
        summary:
          "Credit or debit a merchant's balance in an asset: an operator correction (ledger credit, ledger debit)",
        description:
          'One ledger entry, audited. A debit takes only from the available balance (422 insufficient_balance), never money reserved for payouts. 201 for a new entry; 200 when the reference was already booked for the same correction.',
        params: MerchantParams,
        body: LedgerEntryBody,
        response: { 200: LedgerEntrySchema, 201: LedgerEntrySchema, ...bodyErrors(404, 409, 422) },
      },
    },
    async (req, reply) => {
      const b = req.body;
      const correct = b.kind === 'credit' ? creditMerchant : debitMerchant;
      const v = await correct(s.db, s.clock, actorOf(req), s.catalog, req.params.merchant_id, {
        asset: b.asset,
        amount: b.amount,
        memo: b.memo,
        reference: b.reference ?? null,
      });
      return reply.code(v.replayed ? 200 : 201).send(v);
    },
  );
}

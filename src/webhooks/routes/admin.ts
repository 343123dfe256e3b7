/** The console's webhook deliveries: `webhook deliveries|show|resend`. */
import { toPage } from '../../http/pagination.js';
import type { Services } from '../../services.js';
import { deliveries, resendDelivery, showDelivery } from '../service.js';
import { actorOf, type ConsoleServer } from '../../operators/context.js';
import { pageLimit, pageRequest } from '../../operators/paging.js';
import { errors, Page } from '../../operators/schemas/common.js';
import {
  DeliveryDetailsSchema,
  DeliveryListQuery,
  DeliveryParams,
  DeliverySchema,
} from '../../operators/schemas/deliveries.js';

const tags = ['deliveries'];

export async function deliveryRoutes(app: ConsoleServer, s: Services): Promise<void> {
  app.get(
    '/admin/v1/deliveries',
    {
      schema: {
        operationId: 'listDeliveries',
        tags,
        summary: 'List webhook deliveries, newest first (webhook deliveries)',
        description: 'status=failed lists the ones to resend.',
        querystring: DeliveryListQuery,
        response: { 200: Page(DeliverySchema, 'DeliveryPage'), ...errors(404) },
      },
    },
    async (req) => {
      const q = req.query;
      const rows = await deliveries(s.db, {
        ...(q.merchant_id ? { merchantId: q.merchant_id.toLowerCase() } : {}),
        ...(q.status ? { status: q.status } : {}),
        page: pageRequest(q),
      });
      return toPage(rows, pageLimit(q), (d) => ({ at: d.created_at, id: d.delivery_id }));
    },
  );

  app.get(
    '/admin/v1/deliveries/:delivery_id',
    {
      schema: {
        operationId: 'getDelivery',
        tags,
        summary: 'A webhook delivery with every attempt: time, status code, duration, response excerpt (webhook show)',
        description: 'By its delivery id (dlv_…) or its event id (evt_…, the webhook-id header the receiver saw).',
        params: DeliveryParams,
        response: { 200: DeliveryDetailsSchema, ...errors(404) },
      },
    },
    async (req) => showDelivery(s.db, req.params.delivery_id),
  );

  app.post(
    '/admin/v1/deliveries/:delivery_id/resend',
    {
      schema: {
        operationId: 'resendDelivery',
        tags,
        summary: 'Send a failed delivery again: same webhook-id, a new 3-day retry window (webhook resend)',
        description: '409 delivery_not_failed unless the delivery is failed. The running serve delivers it. No body.',
        params: DeliveryParams,
        response: { 200: DeliverySchema, ...errors(404, 409) },
      },
    },
    async (req) => resendDelivery(s.db, s.clock, actorOf(req), req.params.delivery_id),
  );
}

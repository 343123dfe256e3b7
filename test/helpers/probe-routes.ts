/** Test-only routes that exercise the HTTP layer (schemas, errors) before any feature's routes. */
import { Type } from '@sinclair/typebox';
import type { ApiServer } from '../../src/http/server.js';
import { AmountText, AssetCode, PrintableId, UuidParams, errorResponses } from '../../src/http/schemas.js';

export const ProbeBody = Type.Object(
  {
    order_id: PrintableId('order'),
    asset: AssetCode,
    amount: AmountText('amount'),
    expires_in: Type.Integer({ minimum: 60, maximum: 604800 }),
    external_user_id: Type.Optional(PrintableId('user')),
  },
  { additionalProperties: false },
);

export async function probeRoutes(app: ApiServer): Promise<void> {
  app.post('/v1/probe', { schema: { body: ProbeBody, response: errorResponses(400, 401, 403, 429) } }, async (req) => ({
    merchant_id: req.merchant?.id,
    order_id: req.body.order_id,
  }));
  app.get('/v1/probe/:id', { schema: { params: UuidParams } }, async (req) => ({
    id: req.params.id,
    merchant_id: req.merchant?.id,
  }));
  app.get('/v1/boom', async () => {
    throw new Error('secret internal detail /etc/passwd');
  });
}

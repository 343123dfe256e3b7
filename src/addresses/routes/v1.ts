/** POST /v1/addresses: the permanent deposit address of a user (per_user merchants). */
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import { errorResponses, PrintableId } from '../../http/schemas.js';
import { merchantOf, type ApiServer } from '../../http/server.js';
import { permanentAddress } from '../service.js';

export const CreateAddressBody = Type.Object(
  {
    external_user_id: PrintableId("The merchant's identifier of the user"),
    network: Type.Literal('tron'),
  },
  { additionalProperties: false, title: 'PermanentAddressRequest' },
);

export const PermanentAddressSchema = Type.Object(
  {
    address: Type.String({ description: 'The permanent deposit address of the user' }),
    network: Type.Literal('tron'),
    assets: Type.Array(Type.String(), { description: 'Assets accepted at this address now' }),
  },
  { additionalProperties: false, title: 'PermanentAddress' },
);

export async function addressRoutes(app: ApiServer, services: Services): Promise<void> {
  const deps = { db: services.db, clock: services.clock, catalog: services.catalog, allocator: services.addresses };
  app.post(
    '/v1/addresses',
    {
      schema: {
        operationId: 'getPermanentAddress',
        tags: ['addresses'],
        summary: 'The permanent deposit address of a user (merchants in per_user mode)',
        description:
          'The same address for every asset of the network, stable forever; created on the first call. 409 address_mode_mismatch for a merchant in per_invoice mode.',
        body: CreateAddressBody,
        response: { 200: PermanentAddressSchema, ...errorResponses(400, 401, 403, 409, 429, 503) },
      },
    },
    async (req) => {
      const merchant = merchantOf(req);
      return permanentAddress(deps, merchant, req.body.external_user_id);
    },
  );
}

/** A merchant's reports for its owner: the accounting exports of one merchant, as downloads. */
import { Type } from '@sinclair/typebox';
import { errorResponses } from '../../http/schemas.js';
import type { ApiServer } from '../../http/server.js';
import { openReportFor, ReportPeriodQuery, reportBody, reportResponse } from '../http.js';
import { REPORT_KINDS } from '../service.js';
import type { CabinetDeps } from '../../cabinet/context.js';
import { ownedMerchantOf } from '../../cabinet/ownership.js';
import { cabinetPeriod } from '../../cabinet/period.js';
import { MerchantParams } from '../../cabinet/schema.js';

const ReportQuery = Type.Object(ReportPeriodQuery, { additionalProperties: false });

export async function reportRoutes(app: ApiServer, deps: CabinetDeps): Promise<void> {
  const { services } = deps;
  for (const kind of REPORT_KINDS) {
    app.get(
      `/cabinet/v1/merchants/:merchant_id/reports/${kind}`,
      {
        schema: {
          operationId: `report${kind[0]!.toUpperCase()}${kind.slice(1)}`,
          tags: ['reports'],
          summary: `The merchant's ${kind} report over the half-open UTC period [from, to)`,
          description:
            'The same report as the operator exports for this merchant: CSV (default) or JSON, streamed, the same bytes for the same past period. `from` and `to` mean what they mean on the lists; `from` not before `to` is 422 invalid_period.',
          params: MerchantParams,
          querystring: ReportQuery,
          response: { 200: reportResponse, ...errorResponses(400, 401, 404, 422, 429) },
        },
      },
      async (req, reply) => {
        // Another account's merchant is absent (the ownership hook), before the period is even read.
        const merchant = ownedMerchantOf(req);
        // The lists' checks first, so an empty period is the same 422 invalid_period everywhere in the cabinet.
        cabinetPeriod(req.query);
        const { headers, body } = reportBody(await openReportFor(services, kind, req.query, merchant.id));
        return reply.headers(headers).send(body);
      },
    );
  }
}

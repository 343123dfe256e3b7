/** The console's accounting: `report invoices|payouts|deposits|ledger` and `reserves`. */
import { Type } from '@sinclair/typebox';
import { openReportFor, ReportPeriodQuery, reportBody, reportResponse } from '../http.js';
import { REPORT_KINDS } from '../service.js';
import { checkReserves } from '../../reserves/service.js';
import type { Services } from '../../services.js';
import type { ConsoleServer } from '../../operators/context.js';
import { errors, Uuid } from '../../operators/schemas/common.js';

const ReportQuery = Type.Object(
  { ...ReportPeriodQuery, merchant_id: Type.Optional(Uuid('Only this merchant; absent: every merchant')) },
  { additionalProperties: false },
);
import { ReservesSchema } from '../../operators/schemas/reports.js';

const tags = ['accounting'];

export async function reportRoutes(app: ConsoleServer, s: Services): Promise<void> {
  for (const kind of REPORT_KINDS) {
    app.get(
      `/admin/v1/reports/${kind}`,
      {
        schema: {
          operationId: `report${kind[0]!.toUpperCase()}${kind.slice(1)}`,
          tags,
          summary: `The ${kind} report over the half-open UTC period [from, to) (report ${kind})`,
          description:
            'Streamed as it is read; the same bytes for the same past period every time. Amounts are decimal text beside their asset.',
          querystring: ReportQuery,
          response: { 200: reportResponse, ...errors(400, 404) },
        },
      },
      async (req, reply) => {
        const { headers, body } = reportBody(await openReportFor(s, kind, req.query, req.query.merchant_id ?? null));
        return reply.headers(headers).send(body);
      },
    );
  }

  app.get(
    '/admin/v1/reserves',
    {
      schema: {
        operationId: 'checkReserves',
        tags,
        summary:
          'Per asset, what the chain holds for the service against what the books owe and what the service earned (reserves)',
        description:
          'Reads every deposit address with a balance and the hot wallet from the node, in batches; records the check as the daily one does. 503 service_unavailable when the node cannot be read.',
        response: { 200: ReservesSchema, ...errors(503) },
      },
    },
    async () =>
      checkReserves({
        db: s.db,
        reads: s.scans ?? s.db,
        chain: s.chain,
        catalog: s.catalog,
        clock: s.clock,
        network: s.config.tronNetwork,
      }),
  );
}

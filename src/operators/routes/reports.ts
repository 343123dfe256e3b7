/** The console's accounting: `report invoices|payouts|deposits|ledger` and `reserves`. */
import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { AppError, validationFailed } from '../../errors.js';
import { StringEnum } from '../../http/schemas.js';
import { openReport, REPORT_FORMATS, REPORT_KINDS, type Report, type ReportKind } from '../../reports/service.js';
import { checkReserves } from '../../reserves/service.js';
import type { Services } from '../../services.js';
import type { ConsoleServer } from '../context.js';
import { errors, Uuid } from '../schemas/common.js';
import { ReservesSchema } from '../schemas/reports.js';

const tags = ['accounting'];

export const ReportQuery = Type.Object(
  {
    from: Type.String({
      minLength: 1,
      maxLength: 40,
      description:
        'Start of the half-open UTC period, inclusive: a date (2026-03-01) or an ISO 8601 time with its zone',
    }),
    to: Type.String({ minLength: 1, maxLength: 40, description: 'End of the period, exclusive; same forms' }),
    merchant_id: Type.Optional(Uuid('Only this merchant; absent: every merchant')),
    format: Type.Optional(StringEnum(REPORT_FORMATS, 'csv (RFC 4180, the default) or json')),
  },
  { additionalProperties: false },
);

/**
 * Opens the report or refuses before any byte is sent: a malformed period is 400 validation_failed
 * at `query.from` / `query.to`, an unknown merchant 404 merchant_not_found.
 */
export async function openReportFor(
  s: Services,
  kind: ReportKind,
  q: { from: string; to: string; merchant_id?: string; format?: 'csv' | 'json' },
): Promise<Report> {
  try {
    return await openReport(
      { db: s.scans ?? s.db, catalog: s.catalog },
      { kind, from: q.from, to: q.to, merchantId: q.merchant_id ?? null, format: q.format ?? 'csv' },
    );
  } catch (e) {
    if (e instanceof AppError && e.code === 'invalid_argument') {
      const field = /^(from|to)\b/.exec(e.message)?.[1] ?? 'from';
      throw validationFailed(`query.${field}`, e.message.replace(/^(from|to)\s+/, ''));
    }
    throw e;
  }
}

/** The report as a download: its content type, a file name, the text streamed as it is read. */
export function reportBody(report: Report): { headers: Record<string, string>; body: Readable } {
  return {
    headers: {
      'content-type': report.contentType,
      'content-disposition': `attachment; filename="${report.filename}"`,
    },
    body: Readable.from(report.chunks),
  };
}

export const reportResponse = {
  description: 'The report: CSV with a header row, or JSON (docs/reports.md gives the columns)',
  content: {
    'text/csv': { schema: { type: 'string' } },
    'application/json': { schema: { type: 'object' } },
  },
};

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
        const { headers, body } = reportBody(await openReportFor(s, kind, req.query));
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

/**
 * Report downloads over HTTP, shared by the operator console and the cabinet: the query of a
 * period, the refusals in the consoles' words, and the report streamed as it is read.
 */
import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { AppError, validationFailed } from '../errors.js';
import { StringEnum } from '../http/schemas.js';
import type { Services } from '../services.js';
import { openReport, REPORT_FORMATS, type Report, type ReportKind } from './service.js';

/** The period and format of a report download (a console adds its merchant filter). */
export const ReportPeriodQuery = {
  from: Type.String({
    minLength: 1,
    maxLength: 40,
    description: 'Start of the half-open UTC period, inclusive: a date (2026-03-01) or an ISO 8601 time with its zone',
  }),
  to: Type.String({ minLength: 1, maxLength: 40, description: 'End of the period, exclusive; same forms' }),
  format: Type.Optional(StringEnum(REPORT_FORMATS, 'csv (RFC 4180, the default) or json')),
};

/**
 * Opens the report or refuses before any byte is sent: a malformed period is 400 validation_failed
 * at `query.from` / `query.to`, an unknown merchant 404 merchant_not_found.
 */
export async function openReportFor(
  s: Services,
  kind: ReportKind,
  q: { from: string; to: string; format?: 'csv' | 'json' },
  merchantId: string | null,
): Promise<Report> {
  try {
    return await openReport(
      { db: s.scans ?? s.db, catalog: s.catalog },
      { kind, from: q.from, to: q.to, merchantId, format: q.format ?? 'csv' },
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

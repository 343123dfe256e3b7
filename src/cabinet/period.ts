/**
 * The one meaning of `from` and `to` across the cabinet's lists and reports: the half-open UTC
 * period [from, to), each end a date (2026-03-01, midnight UTC) or an ISO 8601 time with its zone,
 * as the reports take them. A malformed end is 400 validation_failed at its field; a well-formed
 * period that holds no time (`from` at or after `to`) is 422 invalid_period naming `query.to`.
 */
import { AppError, validationFailed } from '../errors.js';
import { moment } from '../reports/period.js';

export interface Period {
  /** ISO times as stored (toISOString), so text comparison is time order. */
  from?: string;
  to?: string;
}

function end(name: 'from' | 'to', text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  try {
    return moment(name, text);
  } catch (e) {
    if (e instanceof AppError && e.code === 'invalid_argument')
      throw validationFailed(`query.${name}`, e.message.replace(/^(from|to)\s+/, ''));
    throw e;
  }
}

export function cabinetPeriod(q: { from?: string; to?: string }): Period {
  const p = { from: end('from', q.from), to: end('to', q.to) };
  if (p.from !== undefined && p.to !== undefined && p.from >= p.to) {
    const message = `to (${p.to}) must be after from (${p.from}): the period [from, to) includes from and excludes to`;
    throw new AppError('invalid_period', message, { details: [{ path: 'query.to', message }] });
  }
  return p;
}

const FORMS = 'a date (2026-03-01, midnight UTC) or an ISO 8601 time with its zone (2026-03-01T09:30:00Z)';

/** The query properties of a period, as every cabinet list and report describes them. */
export const PERIOD_DESCRIPTIONS = {
  from: `Start of the half-open UTC period [from, to), included: ${FORMS}`,
  to: `End of the period, excluded (to=2026-03-02 takes all of March 1st); same forms. Not after from: 422 invalid_period`,
};

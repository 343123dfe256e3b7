/**
 * The period of a report: half-open [from, to) in UTC. Times are compared as the stored text
 * (ISO 8601 with milliseconds and `Z`, as `Date#toISOString` writes every timestamp), so both ends
 * are normalised to that form.
 */
import { AppError } from '../errors.js';

export interface Period {
  /** Inclusive, `YYYY-MM-DDTHH:mm:ss.sssZ`. */
  from: string;
  /** Exclusive, same form. */
  to: string;
}

/** A date (`2026-03-01`, midnight UTC) or a date-time with `Z` or a numeric offset. */
const MOMENT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/** One end of a period as stored text; `invalid_argument` naming the end otherwise. */
export function moment(name: 'from' | 'to', text: string): string {
  const m = MOMENT.exec(text);
  const bad = (why: string) =>
    new AppError(
      'invalid_argument',
      `${name} ${why}; give a date (2026-03-01, midnight UTC) or an ISO 8601 time with its zone (2026-03-01T00:00:00Z)`,
    );
  if (!m) throw bad(`"${text}" is not a date or an ISO 8601 time`);
  if (m[4] !== undefined && m[8] === undefined) throw bad('has no time zone');
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.parse(m[4] === undefined ? `${m[1]}-${m[2]}-${m[3]}T00:00:00Z` : text);
  // Date.parse rolls 2026-02-30 over to March: the calendar date must survive the round trip.
  const check = new Date(Date.UTC(y, mo - 1, d));
  if (Number.isNaN(ms) || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || Number(m[4] ?? 0) > 23)
    throw bad(`"${text}" is not a real date and time`);
  if (m[7] !== undefined && !/^\d{1,3}0*$/.test(m[7])) throw bad('is finer than a millisecond');
  return new Date(ms).toISOString();
}

/** Parses and checks a period; `invalid_argument` naming `from` or `to` otherwise. */
export function parsePeriod(from: string, to: string): Period {
  const period = { from: moment('from', from), to: moment('to', to) };
  if (period.from >= period.to)
    throw new AppError('invalid_argument', `from (${period.from}) must be before to (${period.to})`);
  return period;
}

/**
 * Durations of the CLI (docs/cli.md): `500ms`, `30s`, `15m`, `24h`, `7d`, or plain seconds.
 * Returned in milliseconds; integers only, so there is no floating point in a delay.
 */
export class DurationError extends Error {}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(text: string, maxMs: number): number {
  const m = /^([0-9]{1,12})(ms|s|m|h|d)?$/.exec(text.trim());
  if (!m)
    throw new DurationError(`must be a duration such as 500ms, 30s, 15m, 24h, 7d or plain seconds; got "${text}"`);
  const ms = Number(m[1]) * (UNIT_MS[m[2] ?? 's'] as number);
  if (!Number.isSafeInteger(ms) || ms > maxMs) throw new DurationError(`must be at most ${formatDuration(maxMs)}`);
  return ms;
}

/** The largest unit that divides the duration exactly: 86400000 → "1d", 90000 → "90s". */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    const size = UNIT_MS[unit] as number;
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

/** Custom oclif flags shared by commands. */
import { Errors, Flags } from '@oclif/core';
import { DurationError, formatDuration, parseDuration } from '../whitelist/duration.js';

/**
 * A duration flag (DESIGN.md §11): `500ms`, `30s`, `15m`, `24h`, `7d` or plain seconds; the
 * parsed value is milliseconds.
 */
export function durationFlag(opts: { description: string; default?: string; maxMs?: number }) {
  const maxMs = opts.maxMs ?? 365 * 86_400_000;
  const flag = Flags.custom<number>({
    description: `${opts.description} (500ms, 30s, 15m, 24h, 7d or plain seconds)`,
    parse: async (input) => {
      try {
        return parseDuration(input, maxMs);
      } catch (e) {
        throw new Errors.CLIError(e instanceof DurationError ? e.message : String(e));
      }
    },
  });
  return opts.default !== undefined
    ? flag({ default: parseDuration(opts.default, maxMs), defaultHelp: async () => opts.default as string })
    : flag();
}

export { formatDuration };

/** Custom oclif flags shared by commands. */
import { Args, Errors, Flags } from '@oclif/core';
import { DurationError, formatDuration, parseDuration } from '../whitelist/duration.js';

/**
 * A duration flag (docs/cli.md): `500ms`, `30s`, `15m`, `24h`, `7d` or plain seconds; the
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A merchant or payout id argument. Ids are UUIDs stored in lower case; as on the API (an
 * upper-case spelling names the same record), an upper-case copy finds the record instead of
 * answering not_found. Anything else is passed on as given, for the command's own error.
 */
export const lowerUuid = async (input: string): Promise<string> => (UUID.test(input) ? input.toLowerCase() : input);
export const idArg = (description: string) => Args.string({ required: true, description, parse: lowerUuid });
export const optionalIdArg = (description: string) => Args.string({ required: false, description, parse: lowerUuid });
export const idFlag = (description: string) => Flags.string({ description, parse: lowerUuid });
/** A required, repeatable id flag (`--merchant A --merchant B`), each spelled as idFlag takes it. */
export const idsFlag = (description: string) =>
  Flags.string({ description, required: true, multiple: true, parse: lowerUuid });

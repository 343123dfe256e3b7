/**
 * The flags of a credential's terms (src/keys/terms.ts), shared by `key issue` and `operator token
 * issue`: one spelling and one meaning of `--expires-in` and `--allow-ip` for both, and the printed
 * summary of what was issued.
 */
import { Flags } from '@oclif/core';
import { EXPIRES_IN_MAX_MS, type KeyTermsInput } from '../keys/terms.js';
import { durationFlag } from './flags.js';
import { record } from './format.js';

/** `credential`: what the flags speak of ("key", "token"). */
export function termFlags(credential: string) {
  return {
    'expires-in': durationFlag({
      description: `refuse the ${credential} after this long (at most 3650d); without it the ${credential} does not expire`,
      maxMs: EXPIRES_IN_MAX_MS,
    }),
    'allow-ip': Flags.string({
      multiple: true,
      delimiter: ',',
      description: `a client network (CIDR, or one address) the ${credential} may be used from; repeat for more; without it any address`,
    }),
  };
}

/** The terms as the service takes them, from the parsed flags. */
export function termsOf(flags: { 'expires-in'?: number; 'allow-ip'?: string[] }): KeyTermsInput {
  return { expiresInMs: flags['expires-in'] ?? null, allowedNetworks: flags['allow-ip'] ?? null };
}

/** What `issue` prints after the credential itself (shown once): its id and its terms. */
export function issuedSummary(
  fields: Record<string, unknown>,
  terms: { expires_at: string | null; allowed_networks: string[] | null },
): string {
  return record({
    ...fields,
    expires_at: terms.expires_at,
    allowed_networks: terms.allowed_networks?.join(' ') ?? 'any',
  });
}

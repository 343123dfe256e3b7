/**
 * The terms an API key is issued with (docs/operations/setup.md, "Key rotation"): an optional label, an
 * optional expiry, an optional list of client networks (CIDRs) requests may come from. Outside
 * them a key is refused like any bad key (401 unauthorized, one body whatever the cause).
 *
 * Networks are parsed with ipaddr.js and stored normalised (`10.0.0.0/8`, `2001:db8::/32`); a bare
 * address is its own network (`/32`, `/128`). A client address that is an IPv4-mapped IPv6
 * address (`::ffff:10.1.2.3`, as a dual-stack listener reports IPv4 clients) is matched as the IPv4
 * address it carries.
 */
import ipaddr from 'ipaddr.js';
import { AppError } from '../errors.js';

export const LABEL_MAX = 100;
export const NETWORKS_MAX = 32;
/** The longest expiry a key can be issued with: ten years. */
export const EXPIRES_IN_MAX_MS = 3_650 * 86_400_000;

export interface KeyTermsInput {
  /** 1 to 100 printable characters (spaces allowed, no control characters); trimmed. */
  label?: string | null;
  /** Milliseconds from issue until the key is refused; absent or null: no expiry. */
  expiresInMs?: number | null;
  /** CIDRs (or bare addresses) requests may come from; absent or empty: anywhere. */
  allowedNetworks?: readonly string[] | null;
}

export interface KeyTerms {
  label: string | null;
  expires_at: string | null;
  /** Normalised CIDRs; null: any client address. */
  allowed_networks: string[] | null;
}

/** What a credential's row keeps of its terms (an API key's, an operator token's). */
export interface StoredTerms {
  /** From this moment the credential is refused; null: it does not expire. */
  expires_at: string | null;
  /** JSON of normalised CIDRs; null: any client address. */
  allowed_networks: string | null;
  revoked_at: string | null;
}

/** The stored form of the allowed networks: JSON, or null for any address. */
export function storedNetworks(networks: readonly string[] | null): string | null {
  return networks === null ? null : JSON.stringify(networks);
}

/** The allowed networks as shown (`list --json`): the CIDRs, or null for any address. */
export function networksOf(stored: string | null): string[] | null {
  return stored === null ? null : (JSON.parse(stored) as string[]);
}

/** Revoked wins over expired: a revoked credential stays revoked whatever its expiry. */
export function termsStatus(t: StoredTerms, now: Date): 'active' | 'expired' | 'revoked' {
  if (t.revoked_at) return 'revoked';
  return t.expires_at !== null && t.expires_at <= now.toISOString() ? 'expired' : 'active';
}

/**
 * Whether the credential may be used at `now` from `clientAddress`: not revoked, not past its
 * expiry, and from inside its networks when it has any (an unknown address is outside them).
 * Refusals are decided here, before any hashing, and answered as any bad credential is.
 */
export function usableUnderTerms(t: StoredTerms, now: Date, clientAddress: string | undefined): boolean {
  if (termsStatus(t, now) !== 'active') return false;
  return t.allowed_networks === null || allowedFrom(t.allowed_networks, clientAddress);
}

/** Checks and normalises the terms; `invalid_argument` naming the flag otherwise. */
export function parseKeyTerms(input: KeyTermsInput, now: Date): KeyTerms {
  let label: string | null = null;
  if (input.label !== undefined && input.label !== null) {
    label = input.label.trim();
    // Printable characters only: a label is shown in tables and logs.
    if (label.length < 1 || label.length > LABEL_MAX || /\p{Cc}/u.test(label))
      throw new AppError('invalid_argument', `--label must be 1 to ${LABEL_MAX} printable characters`);
  }
  let expires_at: string | null = null;
  if (input.expiresInMs !== undefined && input.expiresInMs !== null) {
    const ms = input.expiresInMs;
    if (!Number.isSafeInteger(ms) || ms <= 0 || ms > EXPIRES_IN_MAX_MS)
      throw new AppError('invalid_argument', '--expires-in must be more than 0 and at most 3650d');
    expires_at = new Date(now.getTime() + ms).toISOString();
  }
  const given = input.allowedNetworks ?? [];
  if (given.length > NETWORKS_MAX)
    throw new AppError('invalid_argument', `--allow-ip takes at most ${NETWORKS_MAX} networks`);
  const networks = [...new Set(given.map(normaliseNetwork))];
  return { label, expires_at, allowed_networks: networks.length > 0 ? networks : null };
}

/** Plain notation only: four decimal parts for IPv4 (ipaddr.js would also read `10.1` or octal `010.1.2.3`), no zone. */
const isAddress = (t: string) => ipaddr.IPv4.isValidFourPartDecimal(t) || (!t.includes('%') && ipaddr.IPv6.isValid(t));
const isNetwork = (t: string) =>
  ipaddr.IPv4.isValidCIDRFourPartDecimal(t) || (!t.includes('%') && ipaddr.IPv6.isValidCIDR(t));

/** `10.0.0.0/8` as given, a bare address as its own /32 or /128; host bits set are refused. */
export function normaliseNetwork(text: string): string {
  const trimmed = text.trim();
  const refuse = (why: string) =>
    new AppError('invalid_argument', `--allow-ip ${JSON.stringify(text)} ${why} (e.g. 203.0.113.0/24, 2001:db8::/32)`);
  if (!trimmed.includes('/')) {
    if (!isAddress(trimmed)) throw refuse('is not an IP address or a CIDR network');
    const ip = ipaddr.parse(trimmed);
    return `${ip.toString()}/${ip.kind() === 'ipv4' ? 32 : 128}`;
  }
  if (!isNetwork(trimmed)) throw refuse('is not a CIDR network');
  const [ip, bits] = ipaddr.parseCIDR(trimmed);
  const network =
    ip.kind() === 'ipv4' ? ipaddr.IPv4.networkAddressFromCIDR(trimmed) : ipaddr.IPv6.networkAddressFromCIDR(trimmed);
  if (network.toString() !== ip.toString())
    throw refuse(`has host bits set: the network is ${network.toString()}/${bits}`);
  return `${network.toString()}/${bits}`;
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Parsed network lists by their stored JSON (keys share few lists; bounded). */
const parsed = new Map<string, Range[]>();
const PARSED_MAX = 10_000;

function rangesOf(stored: string): Range[] {
  let ranges = parsed.get(stored);
  if (!ranges) {
    ranges = (JSON.parse(stored) as string[]).map((cidr) => ipaddr.parseCIDR(cidr));
    if (parsed.size >= PARSED_MAX) parsed.clear();
    parsed.set(stored, ranges);
  }
  return ranges;
}

/**
 * Whether `clientIp` is inside one of the stored networks (JSON of normalised CIDRs). A client
 * address that cannot be read is outside every network.
 */
export function allowedFrom(stored: string, clientIp: string | undefined): boolean {
  if (clientIp === undefined || !ipaddr.isValid(clientIp)) return false;
  const ip = ipaddr.process(clientIp);
  return rangesOf(stored).some(([net, bits]) => ip.kind() === net.kind() && ip.match(net, bits));
}

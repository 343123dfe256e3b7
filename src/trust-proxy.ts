/**
 * The syntax of TRUST_PROXY and its siblings, checked as proxy-addr (fastify's trustProxy) will
 * read it, so that a value fastify would refuse, or one that trusts every client, stops start-up
 * with the variable named.
 */
import { isIP } from 'node:net';

/** Which proxies to trust for the client's address: none (false), a hop count, or their addresses/CIDRs. */
export type TrustProxy = false | number | string[];

/**
 * A trusted-proxy setting's value: `false`, a hop count, or the proxies' addresses/CIDRs. Throws an
 * Error whose message says what is wrong; the config parser names the variable.
 */
export function parseTrustProxy(v: string): TrustProxy {
  if (v === 'false') return false;
  // Trusting every hop lets any client choose its IP with X-Forwarded-For, defeating the per-IP
  // rate limit and argon2 budgets: name the proxies (or count them) instead.
  if (v.toLowerCase() === 'true') {
    throw new Error(
      'true (trust every proxy) is refused: any client could choose its IP with X-Forwarded-For; give the hop count (e.g. 1) or the proxy addresses/CIDRs',
    );
  }
  if (/^[0-9]+$/.test(v)) return Number(v);
  const list = v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  for (const entry of list) {
    const range = proxyRange(entry);
    // Refused here, so the message names the variable: fastify would stop with "invalid IP
    // address: …" and no name.
    if (!range) throw new Error(`must be false, a hop count or a list of proxy addresses/CIDRs, got "${v}"`);
    // `0.0.0.0/0`, `::/0` or `::ffff:0:0/96` (every IPv4 client, as proxy-addr reads it) is
    // `true` by another spelling: any client could choose its IP with X-Forwarded-For.
    if (range.every) {
      throw new Error(
        `"${entry}" holds every address, which trusts every proxy (refused as "true" is); give the proxies' own addresses/CIDRs or the hop count`,
      );
    }
  }
  return list;
}

/** An IPv6 address in canonical text (RFC 5952 as the URL standard writes it: `::ffff:0:0`). */
function canonicalV6(address: string): string {
  try {
    return new URL(`http://[${address}]`).hostname.slice(1, -1);
  } catch {
    return address.toLowerCase(); // a zone id (fe80::1%eth0): not a mapped address
  }
}

/** One TRUST_PROXY entry (an address or CIDR), checked as proxy-addr will read it; null if malformed. */
function proxyRange(entry: string): { every: boolean } | null {
  const m = /^([^/]+)(?:\/([0-9]{1,3}))?$/.exec(entry);
  const family = m ? isIP(m[1] as string) : 0;
  if (!m || family === 0) return null;
  if (m[2] === undefined) return { every: false };
  const bits = Number(m[2]);
  if (bits > (family === 4 ? 32 : 128)) return null;
  // Any spelling of an IPv4-mapped address (0:0:0:0:0:ffff:…, ::0:ffff:…, with or without a dotted
  // tail) is one to proxy-addr: compared in canonical form, so no spelling slips through.
  const mapped = family === 6 && /^::ffff:[0-9a-f]{1,4}:[0-9a-f]{1,4}$/.test(canonicalV6(m[1] as string));
  return { every: bits === 0 || (mapped && bits <= 96) };
}

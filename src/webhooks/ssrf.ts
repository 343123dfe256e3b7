/**
 * The SSRF guard (docs/adr/0031-ssrf-policy.md): a webhook goes only to public unicast addresses
 * unless the operator allowed private targets for the merchant. The check runs on every address the
 * host name resolves to, at every attempt, and the connection then goes to the address that was
 * checked (transport.ts passes it as the lookup result), so a DNS answer that changes between check
 * and connect (rebinding) cannot reach an internal service.
 */
import ipaddr from 'ipaddr.js';
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import pLimit from 'p-limit';

export class BlockedTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlockedTargetError';
  }
}

/** Words for ipaddr.js's range names, in the refusal an operator reads. */
const RANGE_WORDS: Record<string, string> = {
  unspecified: 'this-network (unspecified)',
  linkLocal: 'link-local (cloud metadata)',
  carrierGradeNat: 'carrier-grade NAT',
  uniqueLocal: 'unique local (private)',
  deprecatedSiteLocal: 'site-local',
  rfc6145: 'IPv4-translated',
  rfc6052: 'local-use NAT64',
  teredo: 'Teredo',
};

/**
 * ::/96 (IPv4-compatible, deprecated): ipaddr.js reads `::a.b.c.d` as the IPv4-mapped
 * `::ffff:a.b.c.d`, so this range is checked with Node's own parser.
 */
const IPV4_COMPATIBLE = new BlockList();
IPV4_COMPATIBLE.addSubnet('::', 96, 'ipv6');

/** The IPv4 address an IPv6 address reaches through a translator or tunnel, if any. */
function embeddedIPv4(ip: ipaddr.IPv6, range: string): ipaddr.IPv4 | null {
  const p = ip.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  if (range === 'ipv4Mapped') return ip.toIPv4Address();
  // NAT64's well-known 64:ff9b::/96; the local-use 64:ff9b:1::/48 (RFC 8215) is refused whole, as
  // where its IPv4 sits depends on the prefix length the network chose.
  if (range === 'rfc6052' && p[2] === 0) return v4(p[6] as number, p[7] as number);
  if (range === '6to4') return v4(p[1] as number, p[2] as number);
  return null;
}

/**
 * Why an address must not be a webhook target, or null for a public unicast address: every
 * special range ipaddr.js knows (private, loopback, link-local, carrier-grade NAT, multicast,
 * reserved, documentation, unique local…) is refused, and an IPv6 address that reaches an IPv4
 * one (mapped, NAT64, 6to4) is judged by that IPv4 address.
 */
export function blockedReason(address: string): string | null {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  const ip = ipaddr.parse(address);
  const range = ip.range();
  if (ip instanceof ipaddr.IPv6 && range !== 'unspecified' && range !== 'loopback') {
    if (IPV4_COMPATIBLE.check(address.replace(/%.*$/, ''), 'ipv6')) return `${address} is in the IPv4-compatible range`;
    const inner = embeddedIPv4(ip, range);
    if (inner) {
      const why = blockedReason(inner.toString());
      return why ? `${address} embeds ${why}` : null;
    }
  }
  return range === 'unicast' ? null : `${address} is in the ${RANGE_WORDS[range] ?? range} range`;
}

export interface ResolvedTarget {
  address: string;
  family: 4 | 6;
}

/**
 * Host name lookups running at once, at most. node:dns lookup is getaddrinfo on libuv's thread pool
 * (4 threads), which the API key checks (argon2) and file I/O share, and a merchant's resolver that
 * does not answer holds a thread for the system's whole resolver timeout, past the delivery's own
 * timeout. Eight such merchants in flight would have stalled every key check of every merchant.
 */
export const DNS_SLOTS = 2;
const dnsSlots = pLimit(DNS_SLOTS);

type Resolve = typeof lookup;
type Addresses = { address: string; family: number }[];

/**
 * Lookups holding a slot, by resolver and name. Why: a lookup that hangs holds its slot past the
 * attempt that asked for it; without this, each retry of the same merchant's lane started another
 * one, and a single name server that never answers took every slot from every other merchant.
 */
const started = new WeakMap<Resolve, Map<string, Promise<Addresses>>>();

/**
 * `name` looked up in a DNS slot, or the lookup of it already running (which holds its slot until
 * it settles, whoever stopped waiting for it: its thread is still busy). An attempt that gave up
 * (`signal`: its timeout, shutdown) while it waited for a slot starts no lookup: its turn passes at
 * once to the next one waiting, instead of a lookup for nobody holding a slot for the resolver's
 * whole timeout.
 */
async function lookupInSlot(name: string, resolve: Resolve, signal?: AbortSignal): Promise<Addresses> {
  let names = started.get(resolve);
  if (!names) started.set(resolve, (names = new Map()));
  const lookups = names;
  const running = lookups.get(name);
  if (running) return running;
  const turn = await dnsSlots(async (): Promise<{ joined: Promise<Addresses> } | { addresses: Addresses }> => {
    if (signal?.aborted) throw new Error('gave up waiting for a DNS slot');
    const meanwhile = lookups.get(name);
    if (meanwhile) return { joined: meanwhile };
    const own = resolve(name, { all: true, verbatim: true }).finally(() => lookups.delete(name));
    lookups.set(name, own);
    return { addresses: await own };
  });
  return 'joined' in turn ? turn.joined : turn.addresses;
}

/**
 * The address to connect to for `hostname`: every address it resolves to must pass (a name that
 * resolves to one public and one private address is refused), unless private targets are allowed.
 */
export async function resolveTarget(
  hostname: string,
  allowPrivate: boolean,
  resolve: Resolve = lookup,
  signal?: AbortSignal,
): Promise<ResolvedTarget> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(bare);
  const addresses = literal ? [{ address: bare, family: literal }] : await lookupInSlot(bare, resolve, signal);
  if (addresses.length === 0) throw new BlockedTargetError(`${bare} resolves to no address`);
  if (!allowPrivate) {
    for (const a of addresses) {
      const why = blockedReason(a.address);
      if (why) throw new BlockedTargetError(`refused target ${bare}: ${why}`);
    }
  }
  const first = addresses[0] as { address: string; family: number };
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

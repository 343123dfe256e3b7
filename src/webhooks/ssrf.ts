/**
 * The SSRF guard (DESIGN §9): a webhook goes only to public unicast addresses unless the operator
 * allowed private targets for the merchant. The check runs on every address the host name resolves
 * to, at every attempt, and the connection then goes to the address that was checked (transport.ts
 * passes it as the lookup result), so a DNS answer that changes between check and connect
 * (rebinding) cannot reach an internal service.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

export class BlockedTargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BlockedTargetError';
  }
}

type Range = [prefix: bigint, bits: number, name: string];

const v4 = (a: string, bits: number, name: string): Range => [ipv4ToBigInt(a), bits, name];
const V4_BLOCKED: Range[] = [
  v4('0.0.0.0', 8, 'this-network'),
  v4('10.0.0.0', 8, 'private'),
  v4('100.64.0.0', 10, 'carrier-grade NAT'),
  v4('127.0.0.0', 8, 'loopback'),
  v4('169.254.0.0', 16, 'link-local (cloud metadata)'),
  v4('172.16.0.0', 12, 'private'),
  v4('192.0.0.0', 24, 'IETF protocol assignments'),
  v4('192.0.2.0', 24, 'documentation'),
  v4('192.88.99.0', 24, '6to4 relay'),
  v4('192.168.0.0', 16, 'private'),
  v4('198.18.0.0', 15, 'benchmarking'),
  v4('198.51.100.0', 24, 'documentation'),
  v4('203.0.113.0', 24, 'documentation'),
  v4('224.0.0.0', 4, 'multicast'),
  v4('240.0.0.0', 4, 'reserved'),
];

const v6 = (a: string, bits: number, name: string): Range => [ipv6ToBigInt(a), bits, name];
const V6_BLOCKED: Range[] = [
  v6('::', 128, 'unspecified'),
  v6('::1', 128, 'loopback'),
  v6('::', 96, 'IPv4-compatible'),
  v6('::ffff:0:0:0', 96, 'IPv4-translated'),
  // RFC 8215 local-use NAT64: a translator with this prefix reaches the embedded IPv4 (private,
  // loopback, metadata…) like the well-known 64:ff9b::/96 does; it is never a public target, and
  // where the IPv4 sits depends on the prefix length the network chose, so the whole /48 is refused.
  v6('64:ff9b:1::', 48, 'local-use NAT64'),
  v6('100::', 64, 'discard'),
  v6('2001::', 23, 'IETF protocol assignments'),
  v6('2001:db8::', 32, 'documentation'),
  v6('fc00::', 7, 'unique local (private)'),
  v6('fe80::', 10, 'link-local'),
  v6('fec0::', 10, 'site-local'),
  v6('ff00::', 8, 'multicast'),
];

function ipv4ToBigInt(a: string): bigint {
  return a.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

/** 128-bit value of an IPv6 text address (with `::` and an optional dotted IPv4 tail). */
function ipv6ToBigInt(a: string): bigint {
  let text = a.replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const n = ipv4ToBigInt(dotted[1] as string);
    text = text.slice(0, -(dotted[1] as string).length) + `${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, null];
  const h = head ? head.split(':') : [];
  const t = tail === null ? [] : tail ? tail.split(':') : [];
  const groups = tail === null ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g || '0', 16)), 0n);
}

const inRange = (value: bigint, width: number, [prefix, bits]: Range) => value >> BigInt(width - bits) === prefix >> BigInt(width - bits);

/** Why an address must not be a webhook target, or null for a public unicast address. */
export function blockedReason(address: string): string | null {
  const family = isIP(address);
  if (family === 4) {
    const hit = V4_BLOCKED.find((r) => inRange(ipv4ToBigInt(address), 32, r));
    return hit ? `${address} is a ${hit[2]} address` : null;
  }
  if (family !== 6) return `${address} is not an IP address`;
  const value = ipv6ToBigInt(address);
  // IPv4 inside IPv6: mapped (::ffff:0:0/96), NAT64 (64:ff9b::/96) and 6to4 (2002::/16) reach the embedded IPv4.
  const embedded =
    value >> 32n === 0xffffn || value >> 32n === 0x64ff9b0000000000000000n ? value & 0xffffffffn : value >> 112n === 0x2002n ? (value >> 80n) & 0xffffffffn : null;
  if (embedded !== null) {
    const inner = [24n, 16n, 8n, 0n].map((s) => String((embedded >> s) & 0xffn)).join('.');
    const why = blockedReason(inner);
    return why ? `${address} embeds ${why}` : null;
  }
  const hit = V6_BLOCKED.find((r) => inRange(value, 128, r));
  return hit ? `${address} is a ${hit[2]} address` : null;
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
let dnsBusy = 0;
const dnsQueue: (() => void)[] = [];

type Resolve = typeof lookup;
type Addresses = { address: string; family: number }[];

/**
 * Lookups holding a slot, by resolver and name. Why: a lookup that hangs holds its slot past the
 * attempt that asked for it; without this, each retry of the same merchant's lane started another
 * one, and a single name server that never answers took every slot from every other merchant.
 */
const started = new WeakMap<Resolve, Map<string, Promise<Addresses>>>();

/**
 * Waits for a free slot. Why the signal: an attempt that gave up while queued (its timeout,
 * shutdown) is taken out of the queue; it used to start its lookup later for nobody, holding a
 * slot for the resolver's whole timeout while live deliveries waited behind it.
 */
function takeSlot(signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(new Error('gave up waiting for a DNS slot'));
  if (dnsBusy < DNS_SLOTS) {
    dnsBusy += 1;
    return Promise.resolve();
  }
  return new Promise<void>((resolve, reject) => {
    const start = () => {
      signal?.removeEventListener('abort', giveUp);
      resolve();
    };
    const giveUp = () => {
      const i = dnsQueue.indexOf(start);
      if (i >= 0) dnsQueue.splice(i, 1);
      reject(new Error('gave up waiting for a DNS slot'));
    };
    dnsQueue.push(start);
    signal?.addEventListener('abort', giveUp, { once: true });
  });
}

function freeSlot(): void {
  const next = dnsQueue.shift();
  if (next) next();
  else dnsBusy -= 1;
}

/**
 * `name` looked up in a DNS slot, or the lookup of it already running (which holds its slot until
 * it settles, whoever stopped waiting for it: its thread is still busy).
 */
async function lookupInSlot(name: string, resolve: Resolve, signal?: AbortSignal): Promise<Addresses> {
  let names = started.get(resolve);
  if (!names) started.set(resolve, (names = new Map()));
  const running = names.get(name);
  if (running) return running;
  await takeSlot(signal);
  const meanwhile = names.get(name);
  if (meanwhile) {
    freeSlot();
    return meanwhile;
  }
  const own = (async (): Promise<Addresses> => {
    await null; // registered below before the lookup runs (a synchronous throw included)
    try {
      return await resolve(name, { all: true, verbatim: true });
    } finally {
      names.delete(name);
      freeSlot();
    }
  })();
  names.set(name, own);
  return own;
}

/**
 * The address to connect to for `hostname`: every address it resolves to must pass (a name that
 * resolves to one public and one private address is refused), unless private targets are allowed.
 */
export async function resolveTarget(hostname: string, allowPrivate: boolean, resolve: Resolve = lookup, signal?: AbortSignal): Promise<ResolvedTarget> {
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

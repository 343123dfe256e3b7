/**
 * All configuration is environment variables, parsed once here (README.md, "Configuration"). An
 * invalid value stops start-up with a ConfigError naming the variable.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { parseTrustProxy, type TrustProxy } from './trust-proxy.js';
import { DurationError, parseDuration } from './whitelist/duration.js';

export type TronNetwork = 'mainnet' | 'nile' | 'devnet';
export const TRON_NETWORKS: readonly TronNetwork[] = ['mainnet', 'nile', 'devnet'];
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config {
  /** The DATABASE_URL as given. */
  databaseUrl: string;
  /** Where the database location came from: the DATABASE_URL variable, or the default `./paygate.db`. */
  databaseFrom: 'DATABASE_URL' | 'default';
  /** What `openDatabase` opens: a SQLite file or a PostgreSQL database (docs/database.md). */
  database: DatabaseTarget;
  /**
   * Filesystem path of the SQLite database (`:memory:` is refused: other processes must share it);
   * null on PostgreSQL, whose files are the server's.
   */
  databasePath: string | null;
  host: string;
  port: number;
  publicBaseUrl: string | null;
  tronNetwork: TronNetwork;
  /** Null means the network's default from config/networks.json (see src/chain/networks.ts). */
  tronFullNodeUrl: string | null;
  tronApiKey: string | null;
  walletKeystore: string;
  /** Null when neither WALLET_PASSPHRASE nor WALLET_PASSPHRASE_FILE is set. */
  walletPassphrase: string | null;
  rateLimitPerIp: number;
  rateLimitPerKey: number;
  /** Requests a minute per client address on the admin listener (ADMIN_RATE_LIMIT_PER_IP); its probes are not counted. */
  adminRateLimitPerIp: number;
  /**
   * Where the rate-limit counters are shared between `serve` replicas (REDIS_URL, `redis://` or
   * `rediss://`); null: each process counts its own requests (docs/adr/0050-rate-limits-across-replicas.md).
   */
  redisUrl: string | null;
  /** The start of every key paygate writes to Redis (REDIS_KEY_PREFIX, default `paygate:`). */
  redisKeyPrefix: string;
  /**
   * Where mail goes out (SMTP_URL, `smtp://` or `smtps://`) and whom it is from (MAIL_FROM); null
   * when neither is set: no mail is queued or sent (docs/operations/setup.md, "Mail").
   */
  mail: MailConfig | null;
  confirmations: number;
  logLevel: LogLevel;
  /**
   * Which proxies to trust for the client address (per-IP limits): false (default), a hop count,
   * or a comma-separated list of addresses/CIDRs. Set it when an HTTPS proxy stands in front.
   * `true` (trust every hop) is refused: any client could then pick its IP with X-Forwarded-For.
   */
  trustProxy: TrustProxy;
  /**
   * The same for the cabinet's listener (CABINET_TRUST_PROXY, same syntax; default false): a proxy
   * in front of the cabinet is not the public one, so neither trusts the other's.
   */
  cabinetTrustProxy: TrustProxy;
  /**
   * How long the worker lease lasts without renewal (WORKER_LEASE_TTL, default 15 s): a second
   * `serve` takes the background work over this long after the holder stops renewing.
   */
  workerLeaseTtlMs: number;
  /**
   * Longest a SIGTERM shutdown of `serve` may take (SHUTDOWN_TIMEOUT, default 20 s): past it, serve
   * logs the steps still running and exits 1 (every step is crash-safe).
   */
  shutdownTimeoutMs: number;
  /** The admin listener (/healthz, /readyz, /metrics): loopback by default, never the public one. */
  adminHost: string;
  /** 0 = any free port (tests); must differ from PORT. */
  adminPort: number;
  /** The merchant cabinet's listener (/cabinet/v1 and its web page): loopback by default. */
  cabinetHost: string;
  /** 0 = any free port (tests); must differ from PORT and ADMIN_PORT. */
  cabinetPort: number;
  /**
   * Where owners reach the cabinet (CABINET_PUBLIC_URL: the VPN or proxy address), for the setup
   * links `paygate owner create` prints; null: the listener's own address.
   */
  cabinetPublicUrl: string | null;
  /**
   * CABINET_INSECURE_COOKIE=1: the cabinet's session cookie goes without `Secure`, for a cabinet
   * reached over plain HTTP on a private network (the demo sets it). Default false: the cookie is
   * `Secure` whatever the request's protocol, so a TLS proxy that forgets to say so cannot strip
   * it; `serve` refuses a non-loopback `http://` CABINET_PUBLIC_URL without this
   * (docs/adr/0091-the-session-cookie-is-secure-by-default.md).
   */
  cabinetInsecureCookie: boolean;
  /** The payment page's listener (/pay/{id} and /pay/v1, for customers): loopback by default. */
  payHost: string;
  /** PAY_PORT, default 8082; 0 = any free port (tests); must differ from the other listeners' ports. */
  payPort: number;
  /**
   * Where customers reach the payment page (PAY_PUBLIC_URL: the HTTPS host name the operator
   * exposes it under): page invoices' `checkout_url` starts with it; null: the listener's address.
   */
  payPublicUrl: string | null;
  /** Which proxies the payment page's listener trusts (PAY_TRUST_PROXY, TRUST_PROXY's syntax; default false). */
  payTrustProxy: TrustProxy;
  /**
   * The least time left to pay for a choice of token on the page (PAY_MIN_TIME_TO_PAY, default
   * 5 min): with less than min(this, half the invoice's term) left the choice is invoice_expired.
   */
  payMinTimeToPayMs: number;
  /**
   * The secret the owners' TOTP secrets are sealed with (CABINET_TOTP_KEY or CABINET_TOTP_KEY_FILE,
   * at least 32 characters; docs/adr/0067-second-factor-guard.md); null: no owner can turn the
   * second factor on, and secrets written before sealing stay as they are until it is set.
   */
  cabinetTotpKey: string | null;
}

export type { TrustProxy } from './trust-proxy.js';

export type DatabaseTarget =
  | { engine: 'sqlite'; path: string }
  /** `poolSize`: connections this process keeps open at most (DATABASE_POOL_SIZE, default 10). */
  | { engine: 'postgres'; url: string; poolSize: number };

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    reason: string,
  ) {
    super(`${variable}: ${reason}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function text(env: Env, name: string): string | null {
  const v = env[name];
  return v === undefined || v.trim() === '' ? null : v.trim();
}

function integer(env: Env, name: string, dflt: number, min: number, max: number): number {
  const v = text(env, name);
  if (v === null) return dflt;
  if (!/^[0-9]+$/.test(v)) throw new ConfigError(name, `must be a whole number, got "${v}"`);
  const n = Number(v);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], dflt: T): T {
  const v = text(env, name);
  if (v === null) return dflt;
  if (!(allowed as readonly string[]).includes(v))
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${v}"`);
  return v as T;
}

function httpUrl(env: Env, name: string): string | null {
  const v = text(env, name);
  if (v === null) return null;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new ConfigError(name, `must be an absolute http(s) URL, got "${v}"`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new ConfigError(name, `must use http or https, got "${u.protocol}"`);
  return v.replace(/\/+$/, '');
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/**
 * `postgres://…` or `postgresql://…` (libpq's URL form: user, password, host, port, database and
 * parameters such as `sslmode`), else a SQLite file: `sqlite:path`, `sqlite://path`, `file:path` or
 * a plain path.
 */
function databaseTarget(env: Env, url: string): DatabaseTarget {
  if (isPostgresUrl(url)) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new ConfigError('DATABASE_URL', 'is not a valid postgres:// URL');
    }
    if (parsed.pathname.replace(/^\//, '') === '')
      throw new ConfigError('DATABASE_URL', 'must name the database (postgres://user@host:5432/paygate)');
    return { engine: 'postgres', url, poolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000) };
  }
  const p = url.replace(/^sqlite:(\/\/)?/, '').replace(/^file:(\/\/)?/, '');
  if (p === '' || p === ':memory:') throw new ConfigError('DATABASE_URL', 'must name a database file');
  return { engine: 'sqlite', path: path.resolve(p) };
}

/** `redis://[user:password@]host[:port][/db]` or `rediss://…` (TLS), as ioredis reads it. */
function redisUrl(env: Env): string | null {
  const v = text(env, 'REDIS_URL');
  if (v === null) return null;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new ConfigError('REDIS_URL', 'must be a redis:// or rediss:// URL (redis://host:6379)');
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:')
    throw new ConfigError('REDIS_URL', `must use redis or rediss, got "${u.protocol}"`);
  if (u.hostname === '') throw new ConfigError('REDIS_URL', 'must name the host (redis://host:6379)');
  const db = u.pathname.replace(/^\//, '');
  if (db !== '' && !/^[0-9]{1,2}$/.test(db))
    throw new ConfigError('REDIS_URL', `the path is the database number (redis://host:6379/0), got "/${db}"`);
  return v;
}

export interface MailConfig {
  smtpUrl: string;
  from: string;
}

/** SMTP_URL and MAIL_FROM go together: one without the other is a mistake, not "no mail". */
function mailConfig(env: Env): MailConfig | null {
  const url = text(env, 'SMTP_URL');
  const from = text(env, 'MAIL_FROM');
  if (url === null && from === null) return null;
  if (url === null) throw new ConfigError('SMTP_URL', 'must be set with MAIL_FROM (smtp://user:password@host:587)');
  if (from === null) throw new ConfigError('MAIL_FROM', 'must be set with SMTP_URL (Shop <billing@example.com>)');
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ConfigError('SMTP_URL', 'must be an smtp:// or smtps:// URL (smtp://user:password@host:587)');
  }
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:')
    throw new ConfigError('SMTP_URL', `must use smtp or smtps, got "${u.protocol}"`);
  if (u.hostname === '') throw new ConfigError('SMTP_URL', 'must name the host (smtp://host:587)');
  // One address, optionally with a display name: "Shop <billing@example.com>" or "billing@example.com".
  if (!/^([^<>\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/.test(from))
    throw new ConfigError(
      'MAIL_FROM',
      `must be an address, optionally with a name (Shop <billing@example.com>), got "${from}"`,
    );
  return { smtpUrl: url, from };
}

/** Printable key prefix: letters, digits and `:_-.`, up to 64 characters. */
function redisKeyPrefix(env: Env): string {
  const v = text(env, 'REDIS_KEY_PREFIX');
  if (v === null) return 'paygate:';
  if (!/^[A-Za-z0-9:_.-]{1,64}$/.test(v))
    throw new ConfigError('REDIS_KEY_PREFIX', `must be 1 to 64 letters, digits or ":_.-", got "${v}"`);
  return v;
}

/** A Redis URL for messages and logs: without its password. */
export function redisLabel(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

/** The database for messages and logs: a PostgreSQL URL without its password. */
export function databaseLabel(target: DatabaseTarget): string {
  if (target.engine === 'sqlite') return target.path;
  const u = new URL(target.url);
  if (u.password) u.password = '***';
  return u.toString();
}

function passphrase(env: Env): string | null {
  const direct = env.WALLET_PASSPHRASE;
  if (direct !== undefined && direct !== '') return direct;
  const file = text(env, 'WALLET_PASSPHRASE_FILE');
  if (file === null) return null;
  try {
    return readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  } catch (e) {
    throw new ConfigError('WALLET_PASSPHRASE_FILE', `cannot read ${file}: ${(e as Error).message}`);
  }
}

/** CABINET_TOTP_KEY, or the first line of CABINET_TOTP_KEY_FILE: a secret of at least 32 characters. */
function cabinetTotpKey(env: Env): string | null {
  let key = text(env, 'CABINET_TOTP_KEY');
  let name = 'CABINET_TOTP_KEY';
  const file = text(env, 'CABINET_TOTP_KEY_FILE');
  if (key === null && file !== null) {
    name = 'CABINET_TOTP_KEY_FILE';
    try {
      key = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (e) {
      throw new ConfigError(name, `cannot read ${file}: ${(e as Error).message}`);
    }
  }
  if (key === null) return null;
  if (key.length < 32)
    throw new ConfigError(name, 'must be at least 32 characters (for example `openssl rand -base64 32`)');
  return key;
}

/** TRUST_PROXY, CABINET_TRUST_PROXY or PAY_TRUST_PROXY (same syntax): which proxies name the client's address. */
function trustProxy(env: Env, name: 'TRUST_PROXY' | 'CABINET_TRUST_PROXY' | 'PAY_TRUST_PROXY'): TrustProxy {
  const v = text(env, name);
  if (v === null) return false;
  try {
    return parseTrustProxy(v);
  } catch (e) {
    throw new ConfigError(name, (e as Error).message);
  }
}

function durationMs(env: Env, name: string, dflt: number, min: number, max: number): number {
  const v = text(env, name);
  if (v === null) return dflt;
  try {
    const ms = parseDuration(v, max);
    if (ms < min) throw new DurationError(`must be at least ${min} ms, got "${v}"`);
    return ms;
  } catch (e) {
    throw new ConfigError(name, (e as Error).message);
  }
}

/** An IP address or a host name, nothing else (no scheme, no port). */
function listenHost(env: Env, name: string, dflt: string): string {
  const v = text(env, name);
  if (v === null) return dflt;
  // Digits and dots, or a colon, must be a real IP address ("999.1" or "0.0.0.0:8080" is not a name).
  const ipShaped = /^[0-9.]+$/.test(v) || v.includes(':');
  const ok = ipShaped
    ? isIP(v) !== 0
    : /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/.test(
        v,
      );
  if (!ok) throw new ConfigError(name, `must be an IP address or a host name, got "${v}"`);
  return v;
}

function adminPort(env: Env, port: number): number {
  const admin = integer(env, 'ADMIN_PORT', 9090, 0, 65535);
  if (admin !== 0 && admin === port)
    throw new ConfigError('ADMIN_PORT', `must differ from PORT (${port}): the admin listener is never the public one`);
  return admin;
}

function cabinetPort(env: Env, port: number, admin: number): number {
  const cabinet = integer(env, 'CABINET_PORT', 9091, 0, 65535);
  if (cabinet !== 0 && (cabinet === port || cabinet === admin))
    throw new ConfigError(
      'CABINET_PORT',
      `must differ from PORT (${port}) and ADMIN_PORT (${admin}): the cabinet has a listener of its own`,
    );
  return cabinet;
}

function payPort(env: Env, others: Record<string, number>): number {
  const pay = integer(env, 'PAY_PORT', 8082, 0, 65535);
  const clash = Object.entries(others).find(([, port]) => pay !== 0 && port === pay);
  if (clash)
    throw new ConfigError(
      'PAY_PORT',
      `must differ from ${clash[0]} (${clash[1]}): the payment page has a listener of its own`,
    );
  return pay;
}

/** The payment page's address as customers use it: PAY_PUBLIC_URL, else its listener's. */
export function payUrl(config: Config): string {
  if (config.payPublicUrl) return config.payPublicUrl.replace(/\/+$/, '');
  const host = config.payHost.includes(':') ? `[${config.payHost}]` : config.payHost;
  return `http://${host}:${config.payPort}`;
}

/**
 * A cabinet owners reach over plain HTTP beyond this machine would send its `Secure` session
 * cookie nowhere (the browser keeps it for HTTPS): `serve` refuses to start so rather than let
 * sign-in fail silently, unless CABINET_INSECURE_COOKIE=1 says the plain-HTTP network is meant.
 */
export function assertCabinetCookieReachable(config: Config): void {
  const url = config.cabinetPublicUrl;
  if (url === null || config.cabinetInsecureCookie) return;
  const u = new URL(url);
  if (u.protocol !== 'http:' || isLoopbackHost(u.hostname)) return;
  throw new ConfigError(
    'CABINET_PUBLIC_URL',
    `is ${url}: plain HTTP beyond this machine, where browsers never send the cabinet's Secure session cookie. Put the cabinet behind HTTPS (an https:// CABINET_PUBLIC_URL), or set CABINET_INSECURE_COOKIE=1 to send the cookie without Secure on a network you trust`,
  );
}

function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** The cabinet's address as owners use it: CABINET_PUBLIC_URL, else its listener's. */
export function cabinetUrl(config: Config): string {
  if (config.cabinetPublicUrl) return config.cabinetPublicUrl;
  const host = config.cabinetHost.includes(':') ? `[${config.cabinetHost}]` : config.cabinetHost;
  return `http://${host}:${config.cabinetPort}`;
}

export function parseConfig(env: Env = process.env): Config {
  const databaseUrl = text(env, 'DATABASE_URL') ?? './paygate.db';
  const database = databaseTarget(env, databaseUrl);
  return {
    databaseUrl,
    databaseFrom: text(env, 'DATABASE_URL') === null ? 'default' : 'DATABASE_URL',
    database,
    databasePath: database.engine === 'sqlite' ? database.path : null,
    // Checked like ADMIN_HOST: "http://0.0.0.0" or "0.0.0.0:8080" used to fail only at listen,
    // with a resolver error that does not name the variable.
    host: listenHost(env, 'HOST', '127.0.0.1'),
    port: integer(env, 'PORT', 8080, 0, 65535),
    publicBaseUrl: httpUrl(env, 'PUBLIC_BASE_URL'),
    tronNetwork: oneOf(env, 'TRON_NETWORK', TRON_NETWORKS, 'mainnet'),
    tronFullNodeUrl: httpUrl(env, 'TRON_FULL_NODE_URL'),
    tronApiKey: text(env, 'TRON_API_KEY'),
    walletKeystore: path.resolve(text(env, 'WALLET_KEYSTORE') ?? './paygate.keystore.json'),
    walletPassphrase: passphrase(env),
    rateLimitPerIp: integer(env, 'API_RATE_LIMIT_PER_IP', 600, 1, 1_000_000),
    rateLimitPerKey: integer(env, 'API_RATE_LIMIT_PER_KEY', 300, 1, 1_000_000),
    adminRateLimitPerIp: integer(env, 'ADMIN_RATE_LIMIT_PER_IP', 600, 1, 1_000_000),
    redisUrl: redisUrl(env),
    redisKeyPrefix: redisKeyPrefix(env),
    mail: mailConfig(env),
    confirmations: integer(env, 'CONFIRMATIONS', 19, 1, 1000),
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    trustProxy: trustProxy(env, 'TRUST_PROXY'),
    cabinetTrustProxy: trustProxy(env, 'CABINET_TRUST_PROXY'),
    workerLeaseTtlMs: durationMs(env, 'WORKER_LEASE_TTL', 15_000, 2_000, 600_000),
    shutdownTimeoutMs: durationMs(env, 'SHUTDOWN_TIMEOUT', 20_000, 1_000, 600_000),
    adminHost: listenHost(env, 'ADMIN_HOST', '127.0.0.1'),
    adminPort: adminPort(env, integer(env, 'PORT', 8080, 0, 65535)),
    cabinetHost: listenHost(env, 'CABINET_HOST', '127.0.0.1'),
    cabinetPort: cabinetPort(env, integer(env, 'PORT', 8080, 0, 65535), integer(env, 'ADMIN_PORT', 9090, 0, 65535)),
    cabinetPublicUrl: httpUrl(env, 'CABINET_PUBLIC_URL'),
    cabinetInsecureCookie: oneOf(env, 'CABINET_INSECURE_COOKIE', ['0', '1'], '0') === '1',
    payHost: listenHost(env, 'PAY_HOST', '127.0.0.1'),
    payPort: payPort(env, {
      PORT: integer(env, 'PORT', 8080, 0, 65535),
      ADMIN_PORT: integer(env, 'ADMIN_PORT', 9090, 0, 65535),
      CABINET_PORT: integer(env, 'CABINET_PORT', 9091, 0, 65535),
    }),
    payPublicUrl: httpUrl(env, 'PAY_PUBLIC_URL'),
    payTrustProxy: trustProxy(env, 'PAY_TRUST_PROXY'),
    payMinTimeToPayMs: durationMs(env, 'PAY_MIN_TIME_TO_PAY', 300_000, 0, 86_400_000),
    cabinetTotpKey: cabinetTotpKey(env),
  };
}

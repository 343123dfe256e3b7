/**
 * The admin listener (ADMIN_HOST:ADMIN_PORT, loopback by default): `/healthz`, `/readyz` and
 * `/metrics` for the orchestrator and Prometheus, and the operator console `/admin/v1`
 * (src/operators/console.ts). It is a separate server on its own port, so the public listener (and
 * the HTTPS proxy in front of it) can never expose these. Built by the one front door
 * (src/http/surface.ts) with a per-IP request limit of its own (ADMIN_RATE_LIMIT_PER_IP, counted in
 * this process), which the probes stay out of: an orchestrator's or Prometheus's call is never 429
 * (docs/adr/0062-operator-token-terms-and-the-console-limit.md). Its credential is the operator
 * token.
 */
import { sql } from 'kysely';
import { buildSurface, type ApiServer } from '../http/surface.js';
import type { VerifierOptions } from '../keys/verifier.js';
import { operatorConsole } from '../operators/console.js';
import { CONSOLE_DOCUMENT } from '../operators/openapi.js';
import { OperatorTokenVerifier } from '../operators/verifier.js';
import type { Services } from '../services.js';
import type { AppMetrics } from './metrics.js';
import type { ChainProbeOptions } from './probes.js';
import { operations } from './registry.js';

/** Watcher lag above which /readyz answers 503 (about 5 minutes of TRON blocks). */
export const DEFAULT_MAX_WATCHER_LAG_BLOCKS = 100;

export interface AdminOptions {
  maxWatcherLagBlocks?: number;
  /** Node call timeout and caching of the probes (tests shorten them). */
  probe?: ChainProbeOptions;
  /** Hashing budgets of operator token verification (the API keys' defaults otherwise). */
  operatorTokens?: VerifierOptions;
}

interface Check {
  ok: boolean | null;
  [detail: string]: unknown;
}

const reason = (e: unknown) => (e instanceof Error ? e.message : String(e));

async function checkDatabase(s: Services): Promise<Check> {
  try {
    await sql`select 1`.execute(s.db);
    return { ok: true };
  } catch (e) {
    return { ok: false, error: reason(e) };
  }
}

async function checkNode(metrics: AppMetrics): Promise<Check> {
  try {
    return { ok: true, head_block: await metrics.probe.headBlock() };
  } catch (e) {
    return { ok: false, error: reason(e) };
  }
}

async function checkWatcher(metrics: AppMetrics, maxLag: number): Promise<Check> {
  try {
    const lag = await metrics.watcherLag();
    // Unknown (no watcher yet, or before its first scan) does not make the process unready.
    if (lag === null) return { ok: null, lag_blocks: null, max_lag_blocks: maxLag };
    return { ok: lag <= maxLag, lag_blocks: lag, max_lag_blocks: maxLag };
  } catch (e) {
    return { ok: false, error: reason(e) };
  }
}

/** The features' own conditions (registry.ts), each under its name. */
async function checkFeatures(s: Services): Promise<Record<string, Check>> {
  const out: Record<string, Check> = {};
  for (const c of operations.readinessChecks) {
    try {
      out[c.name] = await c.check(s);
    } catch (e) {
      out[c.name] = { ok: false, error: reason(e) };
    }
  }
  return out;
}

export async function buildAdminServer(
  s: Services,
  metrics: AppMetrics,
  opts: AdminOptions = {},
  instrument?: (app: ApiServer) => void,
): Promise<ApiServer> {
  const maxLag = opts.maxWatcherLagBlocks ?? DEFAULT_MAX_WATCHER_LAG_BLOCKS;
  const verifier = new OperatorTokenVerifier(s.db, s.clock, opts.operatorTokens);
  const { app } = await buildSurface({
    config: s.config,
    logger: s.logger.child({ component: 'admin' }),
    prefix: '/admin/v1',
    document: CONSOLE_DOCUMENT,
    // Reached directly (loopback by default), never through a proxy: no trustProxy, the socket's address.
    // Each process counts its own: every replica has an admin listener of its own.
    perIp: { max: s.config.adminRateLimitPerIp },
    emptyBodyIsObject: true,
    authenticate: () => async (req) => {
      req.operator = await verifier.authenticate(req.headers.authorization, req.method, req.client, req.ip);
    },
  });

  instrument?.(app);
  app.decorateRequest('operator', null);

  // The orchestrator's and Prometheus's probes carry no credential and are never limited: a
  // flood on the console must not make a replica look dead or blind its monitoring.
  const hide = { schema: { hide: true }, config: { public: true, uncounted: true } };
  app.get('/healthz', hide, async () => ({ status: 'ok' }));

  app.get('/readyz', hide, async (_req, reply) => {
    const [database, node, features] = await Promise.all([checkDatabase(s), checkNode(metrics), checkFeatures(s)]);
    const watcher = node.ok
      ? await checkWatcher(metrics, maxLag)
      : { ok: null, lag_blocks: null, max_lag_blocks: maxLag };
    const ready =
      database.ok === true &&
      node.ok === true &&
      watcher.ok !== false &&
      Object.values(features).every((c) => c.ok !== false);
    return reply
      .code(ready ? 200 : 503)
      .send({ status: ready ? 'ready' : 'not_ready', checks: { database, node, watcher, ...features } });
  });

  app.get('/metrics', hide, async (_req, reply) => {
    const text = await metrics.registry.metrics();
    return reply.header('content-type', metrics.registry.contentType).send(text);
  });

  await app.register(async (scope) => operatorConsole(scope, s));
  return app;
}

/**
 * sqlmap (the Debian package) against a real `serve` (test/security/target.ts): one sqlmap run per
 * injection point, marked with sqlmap's `*` in the path, a query parameter, a JSON body field or a
 * header, run one after another so that the request counts /metrics gives between two runs are
 * that run's. A target passes when sqlmap tested its point and found nothing, serve answered
 * sqlmap's requests, and none of them was a 5xx.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Target } from './target.js';

export type ParameterKind = 'path' | 'query' | 'body' | 'header';

export interface SqlmapTarget {
  name: string;
  kind: ParameterKind;
  /** The route as /metrics labels it (its template). */
  route: string;
  url: string;
  /** JSON body (POST) with one `*` marker, or none for a GET. */
  data?: string;
  headers: string[];
  /** A body parameter sqlmap gives a random value in every request (a new order each time). */
  randomize?: string;
}

export interface TargetResult {
  target: SqlmapTarget;
  verdict: 'not injectable' | 'INJECTABLE' | 'error';
  /** Requests serve answered during this run, all routes (from /metrics). */
  requests: number;
  /** Requests serve answered on the target's route. */
  routeRequests: number;
  /** Answers by status during this run. */
  statuses: Record<string, number>;
  /** 5xx answers during this run. */
  serverErrors: number;
  /** sqlmap's own line: which error codes it received and how often. */
  sqlmapErrorCodes: string[];
  /** Lines of sqlmap's output that claim an injection (empty when none). */
  findings: string[];
  seconds: number;
  exitCode: number | null;
}

export interface SqlmapReport {
  level: number;
  risk: number;
  results: TargetResult[];
  /** Log lines of serve that report a failed request (5xx). */
  serveFailures: Array<Record<string, unknown>>;
  ok: boolean;
}

export function sqlmapAvailable(): boolean {
  return spawnSync('sqlmap', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Every /v1 route and every parameter it takes, each as one injection point. */
export function allTargets(t: Target): SqlmapTarget[] {
  const shop = `X-Api-Key: ${t.shopKey}`;
  const json = 'Content-Type: application/json';
  const invoiceUrl = `${t.base}/v1/invoices/${t.invoiceId}`;
  const invoice = { order_id: t.orderId, asset: 'USDT_TRON', amount: '10', expires_in: 604800 };
  const payout = { reference: t.payoutReference, asset: 'USDT_TRON', to_address: t.payoutAddress, amount: '1' };
  const address = { external_user_id: t.externalUserId, network: 'tron' };
  const targets: SqlmapTarget[] = [
    {
      name: 'GET /v1/invoices/{id}: id',
      kind: 'path',
      route: '/v1/invoices/:id',
      url: `${invoiceUrl}*`,
      headers: [shop],
    },
    {
      name: 'GET /v1/payouts/{id}: id',
      kind: 'path',
      route: '/v1/payouts/:id',
      url: `${t.base}/v1/payouts/${t.payoutId}*`,
      headers: [shop],
    },
    // The API has no query parameters: these show that ones a client adds anyway reach no query.
    {
      name: 'GET /v1/invoices/{id}?limit',
      kind: 'query',
      route: '/v1/invoices/:id',
      url: `${invoiceUrl}?limit=10*`,
      headers: [shop],
    },
    {
      name: 'GET /v1/invoices/{id}?starting_after',
      kind: 'query',
      route: '/v1/invoices/:id',
      url: `${invoiceUrl}?starting_after=${t.invoiceId}*`,
      headers: [shop],
    },
    {
      name: 'GET /v1/payouts/{id}?status',
      kind: 'query',
      route: '/v1/payouts/:id',
      url: `${t.base}/v1/payouts/${t.payoutId}?status=queued*`,
      headers: [shop],
    },
  ];
  const bodyTargets = (
    route: string,
    key: string,
    body: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ) => {
    const full = { ...body, ...extra };
    for (const field of Object.keys(full)) {
      const marked = JSON.stringify(full).replace(
        `"${field}":${JSON.stringify(full[field])}`,
        `"${field}":${markValue(full[field])}`,
      );
      targets.push({
        name: `POST ${route}: ${field}`,
        kind: 'body',
        route,
        url: t.base + route,
        data: marked,
        headers: [key, json],
      });
    }
  };
  bodyTargets('/v1/invoices', shop, invoice);
  // Optional invoice fields, each on a body of its own order so the replay above is not disturbed.
  for (const [field, value] of [
    ['external_user_id', 'user-9'],
    ['return_url', 'https://shop.example/return'],
    ['cancel_url', 'https://shop.example/cancel'],
  ] as const) {
    const body = { ...invoice, order_id: `order-${field}`, [field]: value };
    targets.push({
      name: `POST /v1/invoices: ${field}`,
      kind: 'body',
      route: '/v1/invoices',
      url: `${t.base}/v1/invoices`,
      data: JSON.stringify(body).replace(`"${field}":"${value}"`, `"${field}":"${value}*"`),
      headers: [shop, json],
      // A new order_id in every request, so each payload is validated and stored, not answered by
      // the replay of an existing order (which does not compare these fields).
      randomize: 'order_id',
    });
  }
  bodyTargets('/v1/payouts', shop, payout);
  bodyTargets('/v1/addresses', `X-Api-Key: ${t.usersKey}`, address);
  targets.push(
    {
      name: 'GET /v1/invoices/{id}: X-Api-Key',
      kind: 'header',
      route: '/v1/invoices/:id',
      url: invoiceUrl,
      headers: [`${shop}*`],
    },
    {
      name: 'GET /v1/invoices/{id}: X-Request-Id',
      kind: 'header',
      route: '/v1/invoices/:id',
      url: invoiceUrl,
      headers: [shop, 'X-Request-Id: req-1*'],
    },
    {
      name: 'POST /v1/invoices: Idempotency-Key',
      kind: 'header',
      route: '/v1/invoices',
      url: `${t.base}/v1/invoices`,
      data: JSON.stringify(invoice),
      headers: [shop, json, 'Idempotency-Key: idem-1*'],
    },
  );
  return targets;
}

/** A JSON value with sqlmap's marker: inside a string's quotes, after a number. */
function markValue(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(`${v}*`) : `${JSON.stringify(v)}*`;
}

/** One route per kind of parameter: the short run of the test. */
export function representativeTargets(t: Target): SqlmapTarget[] {
  const all = allTargets(t);
  const pick = (name: string) => all.find((x) => x.name === name)!;
  return [
    pick('GET /v1/invoices/{id}: id'),
    pick('GET /v1/invoices/{id}?limit'),
    pick('POST /v1/payouts: reference'),
    pick('POST /v1/invoices: amount'),
    pick('GET /v1/invoices/{id}: X-Api-Key'),
  ];
}

/** What sqlmap says when it found an injection (confirmed or by its heuristic). */
const FINDING = [
  /identified the following injection point/i,
  /parameter '[^']+' is vulnerable/i,
  /parameter '[^']+' appears to be '[^']+' injectable/i,
  /might be injectable/i,
];
const TESTED = /parameter '[^']+' does not seem to be injectable|all tested parameters do not appear to be injectable/;

async function requestCounts(t: Target): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const s of await t.metric('paygate_http_requests_total')) {
    // The scrapes of /metrics that measure the run are not the run's requests.
    if (s.labels.route === '/metrics') continue;
    counts.set(`${s.labels.listener} ${s.labels.method} ${s.labels.route} ${s.labels.status}`, s.value);
  }
  return counts;
}

function runOne(
  target: SqlmapTarget,
  level: number,
  risk: number,
  outputDir: string,
  timeoutMs: number,
): Promise<{ output: string; exitCode: number | null }> {
  const args = [
    '-u',
    target.url,
    '--batch',
    '--flush-session',
    '--disable-coloring',
    '--output-dir',
    outputDir,
    '--level',
    String(level),
    '--risk',
    String(risk),
    '--threads',
    '4',
    // A wrong key is a 401 by design (X-Api-Key target): sqlmap would stop at the first one.
    '--ignore-code',
    '401',
  ];
  if (target.data !== undefined) args.push('--data', target.data, '--method', 'POST');
  if (target.randomize) args.push('--randomize', target.randomize);
  for (const h of target.headers) args.push('-H', h);
  return new Promise((resolve) => {
    const child = spawn('sqlmap', args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TERM: 'dumb' } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => {
      output += `\n[paygate] sqlmap stopped after ${timeoutMs / 1000} s\n`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('close', (exitCode) => {
      clearTimeout(timer);
      resolve({ output, exitCode });
    });
  });
}

export interface SqlmapOptions {
  level?: number;
  risk?: number;
  /** Per target; past it sqlmap is stopped and the target is an error. */
  timeoutMs?: number;
  onResult?: (r: TargetResult) => void;
}

export async function runSqlmap(t: Target, targets: SqlmapTarget[], opts: SqlmapOptions = {}): Promise<SqlmapReport> {
  const level = opts.level ?? 1;
  const risk = opts.risk ?? 1;
  const outputDir = mkdtempSync(path.join(tmpdir(), 'paygate-sqlmap-'));
  const results: TargetResult[] = [];
  try {
    for (const target of targets) {
      const before = await requestCounts(t);
      const started = Date.now();
      const { output, exitCode } = await runOne(target, level, risk, outputDir, opts.timeoutMs ?? 600_000);
      const seconds = (Date.now() - started) / 1000;
      const after = await requestCounts(t);
      const statuses: Record<string, number> = {};
      let requests = 0;
      let routeRequests = 0;
      for (const [label, value] of after) {
        const delta = value - (before.get(label) ?? 0);
        if (delta === 0) continue;
        const [, , route, status] = label.split(' ') as [string, string, string, string];
        statuses[status] = (statuses[status] ?? 0) + delta;
        requests += delta;
        if (route === target.route) routeRequests += delta;
      }
      const serverErrors = Object.entries(statuses)
        .filter(([s]) => s.startsWith('5'))
        .reduce((a, [, n]) => a + n, 0);
      const lines = output.split('\n');
      const findings = lines.filter((l) => FINDING.some((re) => re.test(l)));
      const tested = TESTED.test(output);
      const verdict = findings.length > 0 ? 'INJECTABLE' : tested && routeRequests > 0 ? 'not injectable' : 'error';
      const codes = lines.flatMap((l, i) =>
        /HTTP error codes detected/.test(l) ? lines.slice(i + 1).filter((x) => /^\d{3} \(/.test(x)) : [],
      );
      const result: TargetResult = {
        target,
        verdict,
        requests,
        routeRequests,
        statuses,
        serverErrors,
        sqlmapErrorCodes: codes,
        findings,
        seconds,
        exitCode,
      };
      if (verdict === 'error') result.findings = lines.filter((l) => /\[(CRITICAL|ERROR)\]|stopped after/.test(l));
      results.push(result);
      opts.onResult?.(result);
    }
  } finally {
    rmSync(outputDir, { recursive: true, force: true });
  }
  const serveFailures = t.failures();
  const ok = serveFailures.length === 0 && results.every((r) => r.verdict === 'not injectable' && r.serverErrors === 0);
  return { level, risk, results, serveFailures, ok };
}

/** The per-target table and the verdict, as the script prints them. */
export function formatReport(report: SqlmapReport): string {
  const rows = report.results.map((r) => {
    const statuses = Object.entries(r.statuses)
      .sort()
      .map(([s, n]) => `${s}×${n}`)
      .join(' ');
    return `${r.target.name.padEnd(44)} ${r.target.kind.padEnd(6)} ${r.verdict.padEnd(14)} ${String(r.requests).padStart(6)} ${r.seconds.toFixed(1).padStart(6)}  ${statuses}`;
  });
  const total = report.results.reduce((a, r) => a + r.requests, 0);
  const lines = [
    `sqlmap --level ${report.level} --risk ${report.risk}: ${report.results.length} injection points, ${total} requests answered by serve`,
    `${'target'.padEnd(44)} ${'kind'.padEnd(6)} ${'verdict'.padEnd(14)} ${'reqs'.padStart(6)} ${'secs'.padStart(6)}  answers by status`,
    ...rows,
  ];
  for (const r of report.results.filter((x) => x.findings.length > 0))
    lines.push(`${r.target.name}:`, ...r.findings.map((f) => `  ${f}`));
  for (const f of report.serveFailures) lines.push(`serve logged a failure: ${JSON.stringify(f)}`);
  const injectable = report.results.filter((r) => r.verdict === 'INJECTABLE').length;
  const errors = report.results.filter((r) => r.verdict === 'error').length;
  const fivexx = report.results.reduce((a, r) => a + r.serverErrors, 0);
  lines.push(
    report.ok
      ? 'verdict: nothing injectable, no 5xx'
      : `verdict: FAILED (${injectable} injectable, ${errors} not tested to the end, ${fivexx} answers 5xx, ${report.serveFailures.length} failures logged)`,
  );
  return lines.join('\n');
}

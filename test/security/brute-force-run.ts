/**
 * An API key brute force against a real `serve` (test/security/target.ts), for scripts/brute-force.ts
 * and test/security/brute-force.test.ts. Attackers on 127.0.0.2… (Linux loopback answers all of
 * 127/8; each client socket is bound to its address) send wrong keys as fast as their concurrency
 * allows: wrong secrets for key ids that exist and serve has not verified yet (so argon2 runs),
 * wrong secrets for a key it has verified, unknown key ids and malformed keys. Meanwhile the key
 * owner, on 127.0.0.1 and in a process of its own (owner-child.ts), reads an invoice with its
 * verified key and starts using a fresh one. Every
 * second the runner samples serve's CPU and RSS (/proc) and the verifier's counters (/metrics).
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { randomBytes } from 'node:crypto';
import { cpuSeconds, rssMb } from '../../bench/lib/child.js';
import type { OwnerResults } from './owner-child.js';
import type { Target } from './target.js';

export type KeyKind = 'unverified_id' | 'verified_id' | 'unknown_id' | 'malformed';
const KINDS: KeyKind[] = ['unverified_id', 'verified_id', 'unknown_id', 'malformed'];

export interface Answer {
  status: number;
  code: string | null;
  message: string;
  retryAfter: string | null;
  ms: number;
  /** When the answer came (epoch ms). */
  at: number;
}

/** Sends GET `path` from `localAddress` with `key` as X-Api-Key. */
export function send(base: string, path: string, key: string, agent: http.Agent): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(base + path, { method: 'GET', agent, headers: { 'x-api-key': key } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        let code: string | null = null;
        let message = '';
        try {
          const body = JSON.parse(text) as { error?: { code: string; message: string } };
          code = body.error?.code ?? null;
          message = body.error?.message ?? '';
        } catch {
          code = 'not_json';
        }
        const ra = res.headers['retry-after'];
        resolve({
          status: res.statusCode ?? 0,
          code,
          message,
          retryAfter: typeof ra === 'string' ? ra : null,
          ms: performance.now() - started,
          at: Date.now(),
        });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** A keep-alive agent whose sockets leave from `localAddress`. */
export function agentFrom(localAddress: string, sockets: number): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets: sockets, localAddress } as http.AgentOptions);
}

const keyIdOf = (key: string) => key.slice(3, 19);
const secret = () => randomBytes(32).toString('base64url');
const MALFORMED = () => {
  const options = [
    '',
    'sk_',
    `pk_live_${secret()}`,
    `sk_${randomBytes(8).toString('hex')}_${secret().slice(1)}`,
    `sk_${randomBytes(8).toString('hex').toUpperCase()}_${secret()}`,
    `Bearer sk_${randomBytes(8).toString('hex')}_${secret()}`,
    randomBytes(40).toString('base64'),
  ];
  return options[Math.floor(Math.random() * options.length)]!;
};

/** A wrong key of the given kind; `unverified` are key ids serve has not verified yet. */
export function wrongKey(kind: KeyKind, t: Target, unverified: string[]): string {
  switch (kind) {
    case 'unverified_id':
      return `sk_${keyIdOf(unverified[Math.floor(Math.random() * unverified.length)]!)}_${secret()}`;
    case 'verified_id':
      return `sk_${keyIdOf(t.shopKey)}_${secret()}`;
    case 'unknown_id':
      return `sk_${randomBytes(8).toString('hex')}_${secret()}`;
    case 'malformed':
      return MALFORMED();
  }
}

/** Why a 429 was given: the per-IP request limit, or the client's key-hashing budget. */
export function reason429(a: Answer): 'ip_limit' | 'hash_budget' {
  return /API keys tried/.test(a.message) ? 'hash_budget' : 'ip_limit';
}

export interface BruteForceOptions {
  seconds: number;
  /** Attacker addresses 127.0.0.2 … 127.0.0.(ips+1). */
  ips: number;
  /** Requests in flight per attacker address. */
  concurrency: number;
  /** The verifier's per-second cap (src/keys/verifier.ts default) the verdict checks against. */
  hashesPerSecondCap?: number;
  /** Cores serve may use: 2 argon2 verifications at once plus the event loop. */
  cpuBoundCores?: number;
  onSecond?: (s: SecondSample) => void;
}

export interface SecondSample {
  second: number;
  /** serve's event-loop delay, the largest since the previous sample (prom-client). */
  loopLagMs: number;
  verifications: number;
  cores: number;
  rssMb: number;
  attackAnswers: number;
}

type Counts = Record<string, number>;
const bump = (c: Counts, k: string, n = 1) => void (c[k] = (c[k] ?? 0) + n);

export interface BruteForceReport {
  seconds: number;
  ips: number;
  concurrency: number;
  attack: {
    answers: number;
    byStatus: Counts;
    byKind: Record<KeyKind, Counts>;
    reasons429: Counts;
    /** Wrong keys answered 2xx: must be 0. */
    accepted: number;
    /** 503 and 429 answers without Retry-After: must be 0. */
    withoutRetryAfter: number;
    /** Per attacker address: answers by status. */
    byIp: Record<string, Counts>;
  };
  verifications: { total: number; perSecondMax: number; perSecondAvg: number; cap: number };
  refused: Counts;
  cpu: { coresAvg: number; coresMax: number; cpuSeconds: number; bound: number };
  /** serve's largest event-loop delay seen in a sample, ms. */
  loopLagMaxMs: number;
  rss: { startMb: number; maxMb: number };
  owner: {
    verified: { answers: number; byStatus: Counts; p50: number; p95: number; max: number };
    fresh: { answers: number; byStatus: Counts; firstOk: number | null; maxMs: number };
    withoutRetryAfter: number;
  };
  problems: string[];
}

function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

async function verifierCounts(t: Target): Promise<{ total: number; refused: Counts }> {
  const total = (await t.metric('paygate_api_key_verifications_total'))[0]?.value ?? NaN;
  const refused: Counts = {};
  for (const s of await t.metric('paygate_api_key_verifications_refused_total'))
    refused[s.labels.reason ?? '?'] = s.value;
  return { total, refused };
}

export async function runBruteForce(t: Target, opts: BruteForceOptions): Promise<BruteForceReport> {
  const [ownerFresh, ...attackedIds] = t.spareKeys;
  if (!ownerFresh || attackedIds.length === 0)
    throw new Error('runBruteForce needs a target with at least 2 spare keys');
  // The owner's fresh key is attacked too: strangers who know its id must not spend its budget.
  const unverified = [ownerFresh, ...attackedIds];
  const cap = opts.hashesPerSecondCap ?? 20;
  const invoicePath = `/v1/invoices/${t.invoiceId}`;
  const ips = Array.from({ length: opts.ips }, (_, i) => `127.0.${Math.floor((i + 2) / 256)}.${(i + 2) % 256}`);
  const report: BruteForceReport = {
    seconds: opts.seconds,
    ips: opts.ips,
    concurrency: opts.concurrency,
    attack: {
      answers: 0,
      byStatus: {},
      byKind: { unverified_id: {}, verified_id: {}, unknown_id: {}, malformed: {} },
      reasons429: {},
      accepted: 0,
      withoutRetryAfter: 0,
      byIp: {},
    },
    verifications: { total: 0, perSecondMax: 0, perSecondAvg: 0, cap },
    refused: {},
    cpu: { coresAvg: 0, coresMax: 0, cpuSeconds: 0, bound: opts.cpuBoundCores ?? 3 },
    loopLagMaxMs: 0,
    rss: { startMb: rssMb(t.pid), maxMb: 0 },
    owner: {
      verified: { answers: 0, byStatus: {}, p50: 0, p95: 0, max: 0 },
      fresh: { answers: 0, byStatus: {}, firstOk: null, maxMs: 0 },
      withoutRetryAfter: 0,
    },
    problems: [],
  };
  const owner = await startOwner({ base: t.base, path: invoicePath, key: t.shopKey });
  const start = await verifierCounts(t);
  const cpuStart = cpuSeconds(t.pid);
  const started = Date.now();
  const deadline = started + opts.seconds * 1000;
  owner.go({
    base: t.base,
    path: invoicePath,
    verifiedKey: t.shopKey,
    freshKey: ownerFresh,
    endAt: deadline,
    freshAfterMs: Math.min(2000, opts.seconds * 200),
  });
  const running = () => Date.now() < deadline;
  let errors = 0;

  const attacker = async (ip: string, agent: http.Agent, lane: number) => {
    const byIp = (report.attack.byIp[ip] ??= {});
    // One kind per lane, so cheap refusals are not held up behind keys waiting for argon2.
    const kind = KINDS[lane % KINDS.length]!;
    while (running()) {
      let a: Answer;
      try {
        a = await send(t.base, invoicePath, wrongKey(kind, t, unverified), agent);
      } catch {
        errors += 1;
        continue;
      }
      report.attack.answers += 1;
      bump(report.attack.byStatus, String(a.status));
      bump(report.attack.byKind[kind], String(a.status));
      bump(byIp, String(a.status));
      if (a.status < 300) report.attack.accepted += 1;
      if (a.status === 429) bump(report.attack.reasons429, reason429(a));
      if ((a.status === 429 || a.status === 503) && a.retryAfter === null) report.attack.withoutRetryAfter += 1;
    }
  };

  // Rates over the real interval between samples: a scrape is slow when serve is busy.
  const perSecond: number[] = [];
  const sampler = async () => {
    let prev = { total: start.total, cpu: cpuStart, at: Date.now() };
    for (let second = 1; running(); second++) {
      await new Promise((r) => setTimeout(r, Math.max(0, started + second * 1000 - Date.now())));
      const now = { total: (await verifierCounts(t)).total, cpu: cpuSeconds(t.pid), at: Date.now() };
      const interval = (now.at - prev.at) / 1000;
      const cores = (now.cpu - prev.cpu) / interval;
      const rate = (now.total - prev.total) / interval;
      const rss = rssMb(t.pid);
      const loopLagMs = ((await t.metric('paygate_nodejs_eventloop_lag_max_seconds'))[0]?.value ?? NaN) * 1000;
      report.loopLagMaxMs = Math.max(report.loopLagMaxMs, loopLagMs || 0);
      perSecond.push(rate);
      report.cpu.coresMax = Math.max(report.cpu.coresMax, cores);
      report.rss.maxMb = Math.max(report.rss.maxMb, rss);
      opts.onSecond?.({
        second: (now.at - started) / 1000,
        loopLagMs,
        verifications: rate,
        cores,
        rssMb: rss,
        attackAnswers: report.attack.answers,
      });
      prev = now;
      second = Math.max(second, Math.floor((now.at - started) / 1000));
    }
  };

  const agents = ips.map((ip) => agentFrom(ip, opts.concurrency));
  await Promise.all([
    ...ips.flatMap((ip, i) => Array.from({ length: opts.concurrency }, (_, lane) => attacker(ip, agents[i]!, lane))),
    sampler(),
  ]);
  const ownerResults = await owner.results;
  const elapsed = (Date.now() - started) / 1000;
  for (const a of agents) a.destroy();
  tallyOwner(report, ownerResults, started);

  const end = await verifierCounts(t);
  report.verifications.total = end.total - start.total;
  report.verifications.perSecondMax = Math.max(0, ...perSecond);
  report.verifications.perSecondAvg = report.verifications.total / elapsed;
  for (const [k, v] of Object.entries(end.refused)) report.refused[k] = v - (start.refused[k] ?? 0);
  report.cpu.cpuSeconds = cpuSeconds(t.pid) - cpuStart;
  report.cpu.coresAvg = report.cpu.cpuSeconds / elapsed;
  report.problems = verdict(report, elapsed, errors);
  return report;
}

/** The owner's process (owner-child.ts): started and ready before the attack begins. */
async function startOwner(warmup: {
  base: string;
  path: string;
  key: string;
}): Promise<{ go(orders: object): void; results: Promise<OwnerResults> }> {
  const script = path.join(import.meta.dirname, 'owner-child.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(warmup)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`owner process exited with ${code}`))),
  );
  const next = () => Promise.race([new Promise<string>((resolve) => lines.once('line', resolve)), exited]);
  await next(); // ready
  return {
    go: (orders) => child.stdin!.write(`${JSON.stringify(orders)}\n`),
    results: next().then((line) => JSON.parse(line) as OwnerResults),
  };
}

function tallyOwner(report: BruteForceReport, results: OwnerResults, started: number): void {
  const o = report.owner;
  for (const a of results.verified) {
    o.verified.answers += 1;
    bump(o.verified.byStatus, String(a.status));
    if (a.status === 503 && a.retryAfter === null) o.withoutRetryAfter += 1;
  }
  const latencies = results.verified.map((a) => a.ms);
  Object.assign(o.verified, {
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    max: Math.max(0, ...latencies),
  });
  for (const a of results.fresh) {
    o.fresh.answers += 1;
    o.fresh.maxMs = Math.max(o.fresh.maxMs, a.ms);
    bump(o.fresh.byStatus, String(a.status));
    if (a.status === 200 && o.fresh.firstOk === null) o.fresh.firstOk = (a.at - started) / 1000;
    if (a.status === 503 && a.retryAfter === null) o.withoutRetryAfter += 1;
  }
}

function verdict(r: BruteForceReport, elapsed: number, errors: number): string[] {
  const p: string[] = [];
  if (r.attack.accepted > 0) p.push(`${r.attack.accepted} wrong keys accepted`);
  const unexpected = Object.keys(r.attack.byStatus).filter((s) => !['401', '429', '503'].includes(s));
  if (unexpected.length > 0) p.push(`attack answers other than 401/429/503: ${unexpected.join(', ')}`);
  if (r.attack.withoutRetryAfter > 0) p.push(`${r.attack.withoutRetryAfter} answers 429/503 without Retry-After`);
  // Admissions are counted per calendar second, so a window of T seconds admits at most cap × (T + 1).
  if (r.verifications.total > r.verifications.cap * (Math.ceil(elapsed) + 1))
    p.push(
      `${r.verifications.total} verifications in ${elapsed.toFixed(1)} s is above the cap of ${r.verifications.cap}/s`,
    );
  if (r.cpu.coresMax > r.cpu.bound)
    p.push(`serve used ${r.cpu.coresMax.toFixed(2)} cores, above the bound of ${r.cpu.bound}`);
  for (const [label, side] of [
    ['verified', r.owner.verified],
    ['fresh', r.owner.fresh],
  ] as const) {
    if (side.byStatus['401']) p.push(`the owner's right ${label} key was answered 401 ${side.byStatus['401']} times`);
    const other = Object.keys(side.byStatus).filter((s) => s !== '200' && s !== '503');
    if (other.length > 0) p.push(`the owner's ${label} key got ${other.join(', ')}`);
  }
  if (r.owner.withoutRetryAfter > 0)
    p.push(`the owner got ${r.owner.withoutRetryAfter} answers 503 without Retry-After`);
  if (r.owner.verified.answers === 0 || r.owner.fresh.answers === 0) p.push('the owner sent no request');
  if (errors > 0) p.push(`${errors} attack requests failed at the socket`);
  return p;
}

/** The figures as the script prints them. */
export function formatReport(r: BruteForceReport): string {
  const counts = (c: Counts) =>
    Object.entries(c)
      .sort()
      .map(([k, n]) => `${k}×${n}`)
      .join(' ') || '-';
  const lines = [
    `brute force: ${r.seconds} s, ${r.ips} attacker addresses × ${r.concurrency} in flight`,
    `attack answers: ${r.attack.answers} (${(r.attack.answers / r.seconds).toFixed(0)}/s) by status: ${counts(r.attack.byStatus)}; 429 by reason: ${counts(r.attack.reasons429)}`,
    ...KINDS.map((k) => `  ${k.padEnd(14)} ${counts(r.attack.byKind[k])}`),
    `wrong keys accepted: ${r.attack.accepted}; 429/503 without Retry-After: ${r.attack.withoutRetryAfter}`,
    `argon2 verifications: ${r.verifications.total} (${r.verifications.perSecondAvg.toFixed(1)}/s average, ${r.verifications.perSecondMax.toFixed(1)}/s in the busiest sample; cap ${r.verifications.cap}/s)`,
    `keys left unchecked: ${counts(r.refused)}`,
    `serve CPU: ${r.cpu.cpuSeconds.toFixed(1)} s, ${r.cpu.coresAvg.toFixed(2)} cores average, ${r.cpu.coresMax.toFixed(2)} in the busiest sample (bound ${r.cpu.bound}); RSS ${r.rss.startMb.toFixed(0)} MB at start, ${r.rss.maxMb.toFixed(0)} MB at most; event-loop delay at most ${r.loopLagMaxMs.toFixed(0)} ms`,
    `owner, verified key: ${r.owner.verified.answers} requests, ${counts(r.owner.verified.byStatus)}; latency p50 ${r.owner.verified.p50.toFixed(1)} ms, p95 ${r.owner.verified.p95.toFixed(1)} ms, max ${r.owner.verified.max.toFixed(1)} ms`,
    `owner, fresh key: ${r.owner.fresh.answers} requests, ${counts(r.owner.fresh.byStatus)}; first 200 at ${r.owner.fresh.firstOk === null ? 'never' : `${r.owner.fresh.firstOk.toFixed(1)} s`}, slowest answer ${r.owner.fresh.maxMs.toFixed(0)} ms`,
    r.problems.length === 0
      ? 'verdict: no wrong key accepted, verifications within the cap, CPU bounded, the owner never refused with 401'
      : `verdict: FAILED\n${r.problems.map((x) => `  - ${x}`).join('\n')}`,
  ];
  return lines.join('\n');
}

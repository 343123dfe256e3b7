/**
 * Halts are visible to monitoring, over real HTTP on the admin listener: `payout halt` (the CLI on
 * the same database) shows in `/readyz` details while the process stays ready, and in the gauge
 * `paygate_payouts_halted{scope,brake}`; resume clears both. The shipped alert rules name only
 * series that /metrics serves.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { commandRuns, toolPresent } from '../helpers/tools.js';

const RULES = path.resolve(import.meta.dirname, '../../deploy/prometheus/paygate-alerts.yml');
const promtool = toolPresent('promtool', commandRuns('promtool'), 'apt-get install -y prometheus');

/** One sample of the Prometheus text, e.g. sample(text, 'paygate_payouts_halted{scope="*",brake="worker"}'). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

let devnet: Devnet;
let t: TestApp;
let admin: string;
let env: Record<string, string>;

beforeAll(async () => {
  devnet = await startDevnet({ blockTimeMs: 0, clock: new ManualClock() });
  devnet.control.mine(3);
  t = await startTestApp({
    env: { TRON_FULL_NODE_URL: devnet.url },
    workerHost: { workers: () => [], jobs: [], renewMs: 50 },
    admin: { probe: { timeoutMs: 500, headTtlMs: 0, balanceTtlMs: 0 } },
  });
  admin = t.app.adminUrl as string;
  env = { DATABASE_URL: t.app.config.databaseUrl, TRON_NETWORK: 'devnet' };
});
afterAll(async () => {
  await t?.close();
  await devnet?.close();
});

const readyz = async () => {
  const r = await fetch(`${admin}/readyz`);
  return { status: r.status, body: (await r.json()) as { status: string; checks: Record<string, any> } };
};
const metrics = async () => (await fetch(`${admin}/metrics`)).text();

describe('payout halts on the admin listener', () => {
  it('without a halt: ready, checks.payouts not halted, both brakes of every asset at 0', async () => {
    const r = await readyz();
    expect(r.status).toBe(200);
    expect(r.body.checks.payouts).toEqual({ ok: true, halted: false });
    const text = await metrics();
    expect(sample(text, 'paygate_payouts_halted{scope="*",brake="requests"}')).toBe(0);
    expect(sample(text, 'paygate_payouts_halted{scope="*",brake="worker"}')).toBe(0);
  });

  it('payout halt --worker: still ready (200) with the halt in the details, both gauges of "*" at 1', async () => {
    const halted = await runCli(['payout', 'halt', '--worker', '--reason', 'checking the node', '--json'], env);
    expect(halted.code, halted.stderr).toBe(0);
    const r = await readyz();
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('ready');
    expect(r.body.checks.payouts).toMatchObject({
      ok: true,
      halted: true,
      halts: [{ scope: '*', requests_halted: true, worker_halted: true }],
    });
    const text = await metrics();
    expect(sample(text, 'paygate_payouts_halted{scope="*",brake="requests"}')).toBe(1);
    expect(sample(text, 'paygate_payouts_halted{scope="*",brake="worker"}')).toBe(1);
  });

  it('an asset halt has its own series; resume --worker clears every asset, the asset halt stays', async () => {
    expect((await runCli(['payout', 'halt', '--asset', 'USDT_TRON', '--json'], env)).code).toBe(0);
    expect((await runCli(['payout', 'resume', '--worker', '--json'], env)).code).toBe(0);
    const text = await metrics();
    expect(sample(text, 'paygate_payouts_halted{scope="*",brake="worker"}')).toBe(0);
    expect(sample(text, 'paygate_payouts_halted{scope="*",brake="requests"}')).toBe(0);
    expect(sample(text, 'paygate_payouts_halted{scope="USDT_TRON",brake="requests"}')).toBe(1);
    expect(sample(text, 'paygate_payouts_halted{scope="USDT_TRON",brake="worker"}')).toBe(0);
    const r = await readyz();
    expect(r.status).toBe(200);
    expect(r.body.checks.payouts.halts).toEqual([
      expect.objectContaining({ scope: 'USDT_TRON', worker_halted: false }),
    ]);

    expect((await runCli(['payout', 'resume', '--asset', 'USDT_TRON', '--json'], env)).code).toBe(0);
    expect((await readyz()).body.checks.payouts).toEqual({ ok: true, halted: false });
    expect(sample(await metrics(), 'paygate_payouts_halted{scope="USDT_TRON",brake="requests"}')).toBe(0);
  });
});

describe('deploy/prometheus/paygate-alerts.yml', () => {
  it('alerts on the halt gauge, and every series its rules name is one /metrics serves', async () => {
    const rules = readFileSync(RULES, 'utf8');
    expect(rules).toMatch(/^\s+- alert: PaygatePayoutWorkerHalted$/m);
    const exprs = [...rules.matchAll(/^\s+expr: (.+)$/gm)].map((m) => m[1] as string);
    expect(exprs.length).toBeGreaterThan(0);
    const served = new Set(
      (await metrics())
        .split('\n')
        .filter((l) => l.startsWith('# TYPE '))
        .map((l) => l.split(' ')[2]),
    );
    for (const expr of exprs) {
      for (const [name] of expr.matchAll(/\bpaygate_[a-z_]+/g)) expect(served, expr).toContain(name);
      for (const [, brake] of expr.matchAll(/brake="([a-z]+)"/g)) expect(['requests', 'worker']).toContain(brake);
    }
  });

  it('gives every alert a runbook that exists', () => {
    const rules = readFileSync(RULES, 'utf8');
    const alerts = [...rules.matchAll(/^\s+- alert: (\w+)$/gm)].map((m) => m[1]);
    const runbooks = [...rules.matchAll(/^\s+runbook_url: '([^']+)'$/gm)].map((m) => m[1] as string);
    expect(runbooks).toEqual(alerts.map((a) => `docs/runbooks/${a}.md`));
    for (const runbook of runbooks)
      expect(existsSync(path.resolve(import.meta.dirname, '../..', runbook)), runbook).toBe(true);
  });

  it.skipIf(!promtool)('passes promtool check rules', () => {
    expect(() => execFileSync('promtool', ['check', 'rules', RULES], { stdio: 'pipe' })).not.toThrow();
  });
});

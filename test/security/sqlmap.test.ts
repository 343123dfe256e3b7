/**
 * sqlmap against a real `serve`, short version of scripts/sqlmap.ts: one route per kind of
 * parameter (path id, query, JSON body fields, the key header) at level 1. It passes only when
 * sqlmap tested every point to the end, serve answered its requests, nothing was injectable and
 * no answer was a 5xx. Skipped when sqlmap is not installed (.ci/run installs it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { representativeTargets, runSqlmap, sqlmapAvailable } from './sqlmap-run.js';
import { startTarget, type Target } from './target.js';
import { toolPresent } from '../helpers/tools.js';

const available = toolPresent('sqlmap', sqlmapAvailable(), 'apt-get install -y sqlmap');

describe.skipIf(!available)('sqlmap against serve (skipped: sqlmap is not installed)', () => {
  let target: Target;
  beforeAll(async () => {
    target = await startTarget({ env: { API_RATE_LIMIT_PER_IP: '1000000', API_RATE_LIMIT_PER_KEY: '1000000' } });
  }, 120_000);
  afterAll(() => target?.stop());

  it('finds nothing injectable in a path id, a query parameter, JSON body fields or the key header, and causes no 5xx', async () => {
    const targets = representativeTargets(target);
    expect(new Set(targets.map((t) => t.kind))).toEqual(new Set(['path', 'query', 'body', 'header']));
    const report = await runSqlmap(target, targets, { level: 1, risk: 1, timeoutMs: 60_000 });
    for (const r of report.results) {
      // Not vacuous: sqlmap reached the end of its tests and serve answered its requests.
      expect(r.verdict, `${r.target.name}: ${r.findings.join(' | ')}`).toBe('not injectable');
      expect(r.routeRequests, r.target.name).toBeGreaterThan(20);
      expect(r.serverErrors, r.target.name).toBe(0);
    }
    // The wrong keys sqlmap made of the right one were refused.
    const header = report.results.find((r) => r.target.kind === 'header')!;
    expect(header.statuses['401']).toBeGreaterThan(20);
    expect(report.serveFailures).toEqual([]);
    expect(report.ok).toBe(true);
  }, 120_000);
});

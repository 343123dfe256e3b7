/**
 * API key brute force against a real `serve` with production limits and production argon2 keys
 * (short version of scripts/brute-force.ts). Behaviour only, no timing: no wrong key is accepted,
 * an address that spent its hashing budget gets 429 with Retry-After, another address still has
 * its own, and the key owner is never told 401 for its right key while the attack runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentFrom, reason429, runBruteForce, send, wrongKey } from './brute-force-run.js';
import { startTarget, type Target } from './target.js';

describe('API key brute force against serve', () => {
  let t: Target;
  beforeAll(async () => {
    t = await startTarget({ spareKeys: 3 });
  }, 120_000);
  afterAll(() => t?.stop());

  it('gives each client address its own hashing budget: 429 with Retry-After once spent, while another address still gets its keys checked', async () => {
    const [, attacked] = t.spareKeys as [string, string, string];
    const path = `/v1/invoices/${t.invoiceId}`;
    const first = agentFrom('127.0.1.2', 1);
    const second = agentFrom('127.0.1.3', 1);
    // Budgets are counted per clock minute: start early in one, so all of this falls in it.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 30_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 100));
    try {
      // Ten wrong secrets for a key id serve has not verified: each is hashed and refused.
      for (let i = 0; i < 10; i++) {
        const a = await send(t.base, path, wrongKey('unverified_id', t, [attacked]), first);
        expect(a.status).toBe(401);
      }
      const before = (await t.metric('paygate_api_key_verifications_total'))[0]!.value;
      // The eleventh from that address is not checked at all: its budget for this key id is spent.
      const spent = await send(t.base, path, wrongKey('unverified_id', t, [attacked]), first);
      expect(spent.status).toBe(429);
      expect(reason429(spent)).toBe('hash_budget');
      expect(Number(spent.retryAfter)).toBeGreaterThan(0);
      // Another loopback address is another bucket: its wrong key is hashed and refused, not 429.
      const other = await send(t.base, path, wrongKey('unverified_id', t, [attacked]), second);
      expect(other.status).toBe(401);
      expect((await t.metric('paygate_api_key_verifications_total'))[0]!.value).toBe(before + 1);
      // The owner (127.0.0.1) is not locked out of its own key by the strangers.
      expect((await send(t.base, path, attacked, agentFrom('127.0.0.1', 1))).status).toBe(200);
    } finally {
      first.destroy();
      second.destroy();
    }
  }, 120_000);

  it('accepts no wrong key and never answers the owner 401 while many addresses attack', async () => {
    const report = await runBruteForce(t, { seconds: 4, ips: 8, concurrency: 4 });
    expect(report.attack.accepted).toBe(0);
    // Every kind of wrong key was tried and refused.
    for (const kind of ['unverified_id', 'verified_id', 'unknown_id', 'malformed'] as const) {
      expect(report.attack.byKind[kind]['401'], kind).toBeGreaterThan(0);
    }
    expect(Object.keys(report.attack.byStatus).every((s) => ['401', '429', '503'].includes(s))).toBe(true);
    expect(report.attack.withoutRetryAfter).toBe(0);
    expect(Object.keys(report.attack.byIp)).toHaveLength(8);
    // The owner's verified key and its fresh key: 200, or 503 with Retry-After, never 401.
    expect(report.owner.verified.byStatus['200']).toBeGreaterThan(0);
    expect(report.owner.verified.byStatus['401']).toBeUndefined();
    expect(report.owner.fresh.answers).toBeGreaterThan(0);
    expect(report.owner.fresh.byStatus['401']).toBeUndefined();
    expect(report.owner.withoutRetryAfter).toBe(0);
    expect(report.verifications.total).toBeGreaterThan(0);
    expect(report.problems.filter((p) => !/cores/.test(p))).toEqual([]);
  }, 120_000);
});

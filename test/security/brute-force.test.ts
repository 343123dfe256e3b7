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
    // Budgets are counted per clock minute (src/keys/hash-budget.ts). The checks after the 429
    // need the minute of the 429: when a new one starts in between, the round is run again from
    // two fresh addresses (the budget came back, which is not what is checked here).
    const minute = () => Math.floor(Date.now() / 60_000);
    for (let round = 0; round < 3; round++) {
      const first = agentFrom(`127.0.1.${2 + 2 * round}`, 1);
      const second = agentFrom(`127.0.1.${3 + 2 * round}`, 1);
      try {
        // Wrong secrets for a key id serve has not verified: each is hashed and refused, until the
        // address has spent its budget for that key id (10 a minute; a minute boundary in between
        // starts it again once, hence at most 20 refusals before the 429).
        let refused = 0;
        let sentIn = minute();
        let spent = await send(t.base, path, wrongKey('unverified_id', t, [attacked]), first);
        while (spent.status === 401 && refused < 21) {
          refused += 1;
          sentIn = minute();
          spent = await send(t.base, path, wrongKey('unverified_id', t, [attacked]), first);
        }
        expect(refused).toBeGreaterThanOrEqual(10);
        expect(refused).toBeLessThanOrEqual(20);
        expect(spent.status).toBe(429);
        expect(reason429(spent)).toBe('hash_budget');
        expect(Number(spent.retryAfter)).toBeGreaterThan(0);
        // Past its budget, that address's keys are not checked at all: no argon2 runs for them.
        const before = (await t.metric('paygate_api_key_verifications_total'))[0]!.value;
        const again = await send(t.base, path, wrongKey('unverified_id', t, [attacked]), first);
        const after = (await t.metric('paygate_api_key_verifications_total'))[0]!.value;
        if (minute() !== sentIn && round < 2) continue;
        expect(again.status).toBe(429);
        expect(after).toBe(before);
        // Another loopback address is another bucket: its wrong key is hashed and refused, not 429.
        const other = await send(t.base, path, wrongKey('unverified_id', t, [attacked]), second);
        expect(other.status).toBe(401);
        expect((await t.metric('paygate_api_key_verifications_total'))[0]!.value).toBe(before + 1);
        // The owner (127.0.0.1) is not locked out of its own key by the strangers.
        expect((await send(t.base, path, attacked, agentFrom('127.0.0.1', 1))).status).toBe(200);
        return;
      } finally {
        first.destroy();
        second.destroy();
      }
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

/** The test tiers: each file in exactly one, by what it reaches; the fast tier reaches no devnet or browser. */
import { describe, expect, it } from 'vitest';
import { filesByTier, reach, testFiles, tierOf } from '../helpers/tiers.js';

describe('the test tiers', () => {
  it('place every test file in exactly one tier', () => {
    const placed = Object.values(filesByTier()).flat().sort();
    expect(placed).toEqual(testFiles());
  });

  it('keep the devnet, the browser and child processes out of the fast tier', () => {
    const { unit, integration } = filesByTier();
    for (const file of [...unit, ...integration]) {
      const reached = [...reach(file)];
      expect(
        reached.filter((f) => f.startsWith('src/devnet/') || f.startsWith('playwright')),
        file,
      ).toEqual([]);
    }
    for (const file of unit) expect(reach(file).has('node:child_process'), file).toBe(false);
  });

  it('tell the tiers apart', () => {
    expect(tierOf('test/unit/lifecycle.test.ts')).toBe('unit');
    expect(tierOf('test/fees/fees.test.ts')).toBe('integration');
    expect(tierOf('test/pay/page-browser.test.ts')).toBe('browser');
    expect(tierOf('test/watcher/forks.test.ts')).toBe('devnet');
    expect(tierOf('test/e2e/serve.test.ts')).toBe('end-to-end');
    expect(tierOf('test/soak/soak.test.ts')).toBe('soak');
  });
});

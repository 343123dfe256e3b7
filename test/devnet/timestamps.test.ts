/** Block timestamps follow the clock: a devnet with fast blocks must not run ahead of wall time. */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { DevnetChain } from '../../src/devnet/chain.js';

describe('devnet block timestamps', () => {
  it('with 1 s slots, a block mined each second carries that second', () => {
    const clock = new ManualClock('2026-05-01T00:00:00.000Z');
    const chain = new DevnetChain({ clock, solidLag: 19, slotMs: 1000, accounts: 1 }).genesis();
    for (let i = 0; i < 30; i++) {
      clock.advance(1000);
      const [block] = chain.mine(1);
      expect(block!.timestamp).toBe(clock.now().getTime());
    }
  });

  it('keeps mainnet 3 s slots by default, one slot apart at least', () => {
    const clock = new ManualClock('2026-05-01T00:00:00.000Z');
    const chain = new DevnetChain({ clock, solidLag: 19, accounts: 1 }).genesis();
    const blocks = chain.mine(3);
    expect(blocks[1]!.timestamp - blocks[0]!.timestamp).toBe(3000);
    expect(blocks.every((b) => b.timestamp % 3000 === 0)).toBe(true);
  });
});

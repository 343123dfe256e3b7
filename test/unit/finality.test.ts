/** How far deposits become final in one commit: up to the solid block, cut between blocks. */
import { describe, expect, it } from 'vitest';
import { finalHeight } from '../../src/watcher/deposit-progress.js';

const rows = (...blocks: number[]) => blocks.map((block_number) => ({ final: 0, block_number }));

describe('finalHeight', () => {
  it('reaches the solid block when few deposits wait', () => {
    expect(finalHeight(rows(10, 11, 12), 20, 5)).toBe(20);
    expect(finalHeight([], 20, 5)).toBe(20);
  });

  it('leaves deposits above the solid block and those already final out of the count', () => {
    expect(finalHeight([...rows(25, 26, 27), { final: 1, block_number: 5 }], 20, 1)).toBe(20);
  });

  it('cuts between two blocks once the limit is passed', () => {
    expect(finalHeight(rows(10, 11, 12, 13), 20, 2)).toBe(11);
  });

  it('never splits a block, and a first block over the limit becomes final whole', () => {
    expect(finalHeight(rows(10, 10, 10, 11), 20, 2)).toBe(10);
    expect(finalHeight(rows(10, 10, 10, 10), 20, 2)).toBe(20);
  });
});

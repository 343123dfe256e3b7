/**
 * Reused memory for the node's large answers (src/chain/answer-memory.ts): a buffer is handed out
 * to one answer at a time, only to an answer at least half its size, and the answers read through
 * reused buffers are the node's, byte for byte, range after range.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerMemory, answerMemory, MIN_POOLED_BYTES } from '../../src/chain/answer-memory.js';
import { TronwebTronClient } from '../../src/chain/tronweb-client.js';
import { ManualClock } from '../../src/clock.js';
import { appendBulkBlocks } from '../../src/devnet/bulk.js';
import { startDevnet, type Devnet } from '../../src/devnet/index.js';

describe('answer memory', () => {
  it('hands a given-back buffer to the next answer that fits, as a view of that answer\'s length', () => {
    const memory = new AnswerMemory();
    const first = memory.take(200_000);
    expect(first.length).toBe(200_000);
    expect(first.buffer.byteLength).toBeGreaterThanOrEqual(200_000);
    const held = memory.take(200_000);
    expect(held.buffer).not.toBe(first.buffer); // two answers in flight: two buffers
    memory.give(first.buffer as ArrayBuffer);
    const next = memory.take(150_000);
    expect(next.buffer).toBe(first.buffer);
    expect(next.length).toBe(150_000);
    expect([memory.reused, memory.fresh]).toEqual([1, 2]);
    // Once taken it is nobody else's: the next answer gets a new buffer.
    expect(memory.take(150_000).buffer).not.toBe(first.buffer);
  });

  it('gives a large buffer to no answer under half its size, and pools nothing small', () => {
    const memory = new AnswerMemory();
    const big = memory.take(4 * 1024 * 1024);
    memory.give(big.buffer as ArrayBuffer);
    expect(memory.take(MIN_POOLED_BYTES).buffer).not.toBe(big.buffer);
    expect(memory.take(3 * 1024 * 1024).buffer).toBe(big.buffer);
    const small = memory.take(MIN_POOLED_BYTES - 1);
    expect(small.buffer.byteLength).toBe(MIN_POOLED_BYTES - 1);
    memory.give(small.buffer as ArrayBuffer);
    expect(memory.freeBuffers).toBe(0);
  });

  it('keeps only buffers of the sizes it makes, each once', () => {
    const memory = new AnswerMemory();
    memory.give(new ArrayBuffer(200_001)); // a decompressed answer's exact size
    memory.give(new ArrayBuffer(128 * 1024 * 1024)); // over the largest it makes
    expect(memory.freeBuffers).toBe(0);
    const a = memory.take(200_000);
    memory.give(a.buffer as ArrayBuffer);
    memory.give(a.buffer as ArrayBuffer); // given back twice: one answer at a time may have it
    expect(memory.freeBuffers).toBe(1);
    expect(memory.take(200_000).buffer).toBe(a.buffer);
    expect(memory.take(200_000).buffer).not.toBe(a.buffer);
  });

  it('lets idle buffers go even when no answer comes', async () => {
    const memory = new AnswerMemory(40);
    memory.give(memory.take(300_000).buffer as ArrayBuffer);
    expect(memory.freeBuffers).toBe(1);
    // Dropped within twice the keep time; waited for generously.
    for (let i = 0; i < 50 && memory.freeBuffers > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(memory.freeBuffers).toBe(0);
  });

  it('ignores a buffer that has moved elsewhere (detached), and lets go of everything on release', () => {
    const memory = new AnswerMemory();
    const a = memory.take(300_000);
    structuredClone(a.buffer, { transfer: [a.buffer as ArrayBuffer] });
    memory.give(a.buffer as ArrayBuffer);
    expect(memory.freeBuffers).toBe(0);
    memory.give(memory.take(300_000).buffer as ArrayBuffer);
    expect(memory.freeBuffers).toBe(1);
    memory.release();
    expect(memory.freeBuffers).toBe(0);
  });
});

describe('answers read into reused memory', () => {
  let devnet: Devnet;
  let client: TronwebTronClient;
  let first = 0;
  beforeAll(async () => {
    devnet = await startDevnet({ blockTimeMs: 0, clock: new ManualClock() });
    client = new TronwebTronClient({ fullHost: devnet.url, retries: 1, backoffMs: 5, maxBackoffMs: 20, timeoutMs: 10_000 });
    first = appendBulkBlocks(devnet.control.chain, { count: 12, txPerBlock: 300, payments: [] }).first;
  });
  afterAll(async () => {
    await client.close();
    await devnet.close();
  });

  it('are the node\'s, range after range and block after block, while their buffers go round', async () => {
    answerMemory.release();
    const reusedBefore = answerMemory.reused;
    // Ranges of 4 mainnet-sized blocks (~1.4 MB) and infos (~140 KB), twice over: the second pass
    // reads into buffers the first pass's answers gave back, and must give the same answers.
    const pass = async () => {
      const ranges = [];
      for (let from = first; from < first + 12; from += 4) ranges.push(await client.getScanBlocks(from, from + 4));
      const infos = [];
      for (let n = first; n < first + 12; n++) infos.push(await client.getScanTransferLogs(n));
      return { ranges, infos };
    };
    const once = await pass();
    const twice = await pass();
    expect(twice).toEqual(once);
    // All at once, ranges of different lengths and infos together: buffers in flight side by side,
    // each answer in a buffer of its own while others come back and go out again.
    const together = await Promise.all([
      ...[0, 4, 8].map((k) => client.getScanBlocks(first + k, first + k + 4)),
      ...Array.from({ length: 12 }, (_, k) => client.getScanTransferLogs(first + k)),
      client.getScanBlocks(first, first + 2),
      client.getScanBlocks(first + 2, first + 12),
    ]);
    expect(together.slice(0, 3)).toEqual(once.ranges);
    expect(together.slice(3, 15)).toEqual(once.infos);
    expect(together[15]).toEqual(once.ranges.flat().slice(0, 2));
    expect(together[16]).toEqual(once.ranges.flat().slice(2, 12));
    expect(answerMemory.reused).toBeGreaterThan(reusedBefore + 10);
    expect(once.ranges.flat().map((b) => b.number)).toEqual(Array.from({ length: 12 }, (_, i) => first + i));
    expect(once.infos.every((i) => i.logs.length > 0)).toBe(true);
    // A shorter range after longer ones lands in a longer buffer and still reads whole.
    expect(await client.getScanBlocks(first, first + 3)).toEqual(once.ranges[0]!.slice(0, 3));
  });
});

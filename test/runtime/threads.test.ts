import { expect, test } from 'vitest';
import { startThread } from '../../src/runtime/threads.js';

test('a worker thread runs from its TypeScript module file when the sources run', async () => {
  const thread = startThread(import.meta.url, 'echo-thread');
  try {
    const answer = await new Promise((resolve, reject) => {
      thread.once('message', resolve);
      thread.once('error', reject);
      thread.postMessage(1);
    });
    expect(answer).toBe(42);
  } finally {
    await thread.terminate();
  }
});

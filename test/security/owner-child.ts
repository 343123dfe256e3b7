/**
 * The key owner of the brute force (brute-force-run.ts), in a process of its own so that the
 * attackers' load on their process does not count in the owner's latency. argv[2]: {base, path,
 * key} of a warm-up request; then it prints "ready", reads one JSON line on stdin ({base, path,
 * verifiedKey, freshKey, endAt, freshAfterMs}) and prints one JSON line of results at the end.
 */
import { createInterface } from 'node:readline';
import { agentFrom, send, type Answer } from './brute-force-run.js';

interface Orders {
  base: string;
  path: string;
  verifiedKey: string;
  freshKey: string;
  endAt: number;
  freshAfterMs: number;
}

export interface OwnerResults {
  verified: Answer[];
  fresh: Answer[];
}

const lines = createInterface({ input: process.stdin });
const agent = agentFrom('127.0.0.1', 2);
const firstLine = new Promise<string>((resolve) => lines.once('line', resolve));
// A merchant's backend holds keep-alive connections: open both before the attack's flood of
// connections, whose SYNs can outrun serve's accept queue (a new connection then waits for SYN
// retransmits, seconds, before serve sees it at all).
const warmup = JSON.parse(process.argv[2] ?? '{}') as { base?: string; path?: string; key?: string };
if (warmup.base) await Promise.all([0, 1].map(() => send(warmup.base!, warmup.path!, warmup.key!, agent)));
console.log('ready');
const orders = JSON.parse(await firstLine) as Orders;
const results: OwnerResults = { verified: [], fresh: [] };
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const running = () => Date.now() < orders.endAt;

await Promise.all([
  (async () => {
    while (running()) {
      results.verified.push(await send(orders.base, orders.path, orders.verifiedKey, agent));
      await pause(250);
    }
  })(),
  (async () => {
    // The owner starts using its new key a moment into the attack.
    await pause(orders.freshAfterMs);
    while (running()) {
      results.fresh.push(await send(orders.base, orders.path, orders.freshKey, agent));
      await pause(500);
    }
  })(),
]);
agent.destroy();
console.log(JSON.stringify(results));
lines.close();

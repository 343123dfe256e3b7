/**
 * Sign-ins cannot starve /v1: the time of a new API key's first request (one argon2id check at
 * the production cost) alone, and while a flood of sign-ins (unknown emails, each checked against
 * the decoy hash at the production cost) is under way; and how the flood was answered (401 once
 * checked, 503 past the password share of the hashing).
 * Run: npx tsx bench/sign-in-flood.ts [sign-ins] [keys] [ms from the flood's start to the keys' requests]
 */
import { startChild } from './lib/child.js';

const signIns = Number(process.argv[2] ?? 200);
const keyCount = Number(process.argv[3] ?? 8);
const delayMs = Number(process.argv[4] ?? 500);
const { info, child } = await startChild<{ url: string; cabinet: string; keys: string[] }>('sign-in-flood-server.ts', {
  args: [String(keyCount)],
});

async function firstRequest(key: string): Promise<{ ms: number; status: number }> {
  const start = performance.now();
  const r = await fetch(`${info.url}/v1/bench/authenticated`, { headers: { 'x-api-key': key } });
  await r.arrayBuffer();
  return { ms: performance.now() - start, status: r.status };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

try {
  const half = Math.floor(keyCount / 2);
  // The same number of keys at once, with no flood: the yardstick.
  const alone = await Promise.all(info.keys.slice(0, half).map(firstRequest));
  const statuses: Record<number, number> = {};
  const started = performance.now();
  const flood = Array.from({ length: signIns }, (_, i) =>
    fetch(`${info.cabinet}/cabinet/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `nobody-${i}@shop.example`, password: `wrong password ${i}` }),
    }).then(async (r) => {
      await r.arrayBuffer();
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    }),
  );
  // The keys' first requests go out while the flood is being answered.
  await new Promise((r) => setTimeout(r, delayMs));
  const during = await Promise.all(info.keys.slice(half).map(firstRequest));
  await Promise.all(flood);
  const floodMs = performance.now() - started;
  console.log(
    `sign-in flood bench: ${signIns} concurrent sign-ins, ${keyCount} new keys (half of them ${delayMs} ms into the flood), server in its own process`,
  );
  console.log(
    `new key's first /v1 request alone:        median ${median(alone.map((r) => r.ms)).toFixed(0)} ms (statuses ${alone.map((r) => r.status).join(' ')})`,
  );
  console.log(
    `new key's first /v1 request during flood: median ${median(during.map((r) => r.ms)).toFixed(0)} ms, worst ${Math.max(...during.map((r) => r.ms)).toFixed(0)} ms (statuses ${during.map((r) => r.status).join(' ')})`,
  );
  console.log(`sign-ins answered in ${floodMs.toFixed(0)} ms: ${JSON.stringify(statuses)}`);
} finally {
  child.kill('SIGTERM');
}

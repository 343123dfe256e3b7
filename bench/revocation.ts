/**
 * How long a revoked API key keeps working in a running server: each of N keys is revoked by a
 * separate `paygate key revoke` process (bin/dev.js, as an operator runs it) while this script
 * sends back-to-back requests with that key to the server (in its own process, the key warm in its
 * cache). The delay is from the revocation's timestamp (revoked_at, taken just before its COMMIT)
 * to the first refusal received; it includes the request's own time in the queues of a loaded
 * machine, so it bounds the server's delay from above. Also printed: the last answer that still
 * accepted the key, measured the same way. The mechanism: the server reads the key row on every
 * request (src/keys/verifier.ts), so the delay is the revocation's COMMIT plus one request.
 * Run: npx tsx bench/revocation.ts [revocations]
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { startChild, stopChild } from './lib/child.js';
import { summary } from './lib/summary.js';

const count = Number(process.argv[2] ?? 50);
/** What the p99 delay may be: the COMMIT's fsync and one request, on a loaded machine. */
const TARGET_MS = 200;
const BIN = path.resolve(import.meta.dirname, '../bin/dev.js');
const { info, child } = await startChild<{ url: string; databasePath: string; keys: { keyId: string; key: string }[] }>(
  'revocation-server.ts',
  { args: [String(count)] },
);
// The wall clock of revoked_at (Date in the CLI process); timeOrigin + performance.now() drifts
// from it by hundreds of ms over a few minutes, so it cannot be compared with revoked_at.
const wall = () => Date.now();

async function status(key: string): Promise<number> {
  const res = await fetch(`${info.url}/v1/bench/authenticated`, { headers: { 'x-api-key': key } });
  await res.arrayBuffer();
  return res.status;
}

/** `paygate key revoke` in its own process; its revoked_at and when the process ended. */
function revoke(keyId: string): Promise<{ revokedAt: number; exitedAt: number }> {
  return new Promise((resolve, reject) => {
    const cli = spawn(process.execPath, [BIN, 'key', 'revoke', keyId, '--json'], {
      env: { ...process.env, DATABASE_URL: info.databasePath, TRON_NETWORK: 'devnet', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    cli.stdout.on('data', (d) => (out += d));
    cli.on('error', reject);
    cli.on('close', (code) => {
      const exitedAt = wall();
      if (code !== 0) return reject(new Error(`key revoke exited with ${code}: ${out}`));
      resolve({ revokedAt: Date.parse((JSON.parse(out) as { revoked_at: string }).revoked_at), exitedAt });
    });
  });
}

interface Outcome {
  /** revoked_at -> first refusal received. */
  delayMs: number;
  /** revoked_at -> last acceptance received (negative: none after revoked_at). */
  lastAcceptedMs: number;
  afterExitMs: number;
}

async function once(key: { keyId: string; key: string }): Promise<Outcome> {
  const first = await status(key.key);
  if (first !== 200) throw new Error(`a fresh key was refused: ${first}`);
  const answers: { answeredAt: number; status: number }[] = [];
  const giveUp = wall() + 70_000;
  const load = (async () => {
    for (;;) {
      const s = await status(key.key);
      const answeredAt = wall();
      answers.push({ answeredAt, status: s });
      if (s === 401) return;
      if (s !== 200) throw new Error(`unexpected status ${s}`);
      if (answeredAt > giveUp) throw new Error('the revoked key was still accepted after 70 s');
    }
  })();
  const { revokedAt, exitedAt } = await revoke(key.keyId);
  await load;
  const refused = answers.find((a) => a.status === 401)!;
  const accepted = answers.filter((a) => a.status === 200);
  return {
    delayMs: refused.answeredAt - revokedAt,
    lastAcceptedMs: accepted[accepted.length - 1]!.answeredAt - revokedAt,
    afterExitMs: refused.answeredAt - exitedAt,
  };
}

const pick = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
const fmt = (ms: number) => ms.toFixed(1);

try {
  const outcomes: Outcome[] = [];
  for (const key of info.keys) outcomes.push(await once(key));
  const delays = outcomes.map((o) => o.delayMs).sort((a, b) => a - b);
  const afterExit = outcomes.map((o) => o.afterExitMs).sort((a, b) => a - b);
  const lastAccepted = outcomes.map((o) => o.lastAcceptedMs).sort((a, b) => a - b);
  console.log(
    `revocation bench: ${outcomes.length} keys, each revoked by a separate \`paygate key revoke\` process while one client sends back-to-back requests with it (server in its own process)`,
  );
  console.log(
    `revoked_at -> first refusal received (ms): min ${fmt(delays[0]!)}  median ${fmt(pick(delays, 0.5))}  p99 ${fmt(pick(delays, 0.99))}  max ${fmt(delays[delays.length - 1]!)}`,
  );
  console.log(
    `revoked_at -> last acceptance received (ms): min ${fmt(lastAccepted[0]!)}  median ${fmt(pick(lastAccepted, 0.5))}  p99 ${fmt(pick(lastAccepted, 0.99))}  max ${fmt(lastAccepted[lastAccepted.length - 1]!)}`,
  );
  console.log(
    `first refusal relative to the CLI process's exit (ms; negative: before it exited): min ${fmt(afterExit[0]!)}  median ${fmt(pick(afterExit, 0.5))}  max ${fmt(afterExit[afterExit.length - 1]!)}`,
  );
  console.log(
    'mechanism: the key row is read on every request, so the bound is the COMMIT after revoked_at and one request',
  );
  const p99 = pick(delays, 0.99);
  summary({
    metric: 'key revocation -> first refusal, p99',
    value: `${fmt(p99)} ms`,
    target: `<= ${TARGET_MS} ms (refused on the next request after the COMMIT)`,
    ok: p99 <= TARGET_MS,
  });
} finally {
  await stopChild(child);
}

/**
 * Replicas: authenticated reads (GET /v1/invoices/{id}) and creations (POST /v1/invoices, new order
 * ids) a second in one run on three setups: SQLite with one `serve`, PostgreSQL with one replica,
 * and PostgreSQL with two replicas (the load split over both, half the connections each, no proxy
 * in between); then the failover of the worker lease over `--kills` SIGKILLs of the holder (see
 * bench/lib/failover.ts). Servers and the devnet run in their own processes
 * (bench/replicas-server.ts); rounds alternate the setups so that load on the machine hits all
 * alike; rates are medians of the rounds. Needs a PostgreSQL server (BENCH_POSTGRES_URL, default
 * postgres://postgres@127.0.0.1:5432/postgres, a role allowed to create databases); REDIS_URL, when
 * set, is passed to the replicas.
 *
 *   npx tsx bench/replicas.ts [--rounds 3] [--seconds 3] [--connections 32] [--kills 10] [--ttl 3s]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cannon, median, type Route, type Run } from './lib/cannon.js';
import { startChild, stopChild } from './lib/child.js';
import { measureFailovers } from './lib/failover.js';
import {
  invoicesToRead,
  prepareDatabase,
  startReplica,
  stopReplica,
  type BenchDatabase,
  type Replica,
} from './lib/replica-fleet.js';
import { summary } from './lib/summary.js';
import { parseDuration } from '../src/whitelist/duration.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] as string) : dflt;
};
const rounds = Number(arg('rounds', '3'));
const seconds = Number(arg('seconds', '3'));
const connections = Number(arg('connections', '32'));
const kills = Number(arg('kills', '10'));
const ttl = arg('ttl', '3s');
const ttlMs = parseDuration(ttl, 600_000);
const log = (line: string) => console.log(line);

console.log(
  `replicas bench: ${rounds} rounds of ${seconds} s per setup and route, ${connections} connections, then ${kills} kills of the lease holder; WORKER_LEASE_TTL ${ttl} (${ttlMs} ms); DATABASE_POOL_SIZE ${process.env.DATABASE_POOL_SIZE ?? '10 (default)'}; REDIS_URL ${process.env.REDIS_URL ? 'set: rate limits counted in Redis' : 'unset: each replica counts its own'}`,
);

const dir = mkdtempSync(path.join(tmpdir(), 'paygate-bench-replicas-'));
const databases: BenchDatabase[] = [];
const replicas: Replica[] = [];
/** The two PostgreSQL replicas of the failover phase, replaced in place as they are killed and restarted. */
const pair: Replica[] = [];
const devnet = await startChild<{ url: string; pid: number }>('replicas-server.ts', { args: ['devnet'] });

interface Setup {
  name: string;
  db: BenchDatabase;
  servers: Replica[];
  ids: string[];
}

let seq = 0;
const routes = (s: Setup): Record<'reads' | 'creations', Route> => {
  const auth = { 'x-api-key': s.db.key };
  return {
    reads: {
      method: 'GET',
      path: () => `/v1/invoices/${s.ids[Math.floor(Math.random() * s.ids.length)]}`,
      headers: auth,
    },
    creations: {
      method: 'POST',
      path: '/v1/invoices',
      headers: auth,
      body: () =>
        JSON.stringify({
          order_id: `bench-${process.pid}-${++seq}`,
          asset: 'USDT_TRON',
          amount: '12.5',
          expires_in: 3600,
        }),
    },
  };
};

/**
 * One closed-loop run of `route` on every server of `s` at once, the connections split evenly.
 * `perSecond` counts the 2xx answers only: a creation refused with 503 (a serializable transaction
 * that kept losing its race) is work the client must do again, not throughput.
 */
async function load(s: Setup, kind: 'reads' | 'creations', secs: number): Promise<Run> {
  const each = Math.max(1, Math.floor(connections / s.servers.length));
  const runs = await Promise.all(
    s.servers.map((r) =>
      cannon({ url: r.info.url, route: routes(s)[kind], seconds: secs, connections: each, pid: r.info.pid }),
    ),
  );
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  const non2xx = runs.reduce((n, r) => n + r.non2xx, 0);
  return {
    perSecond: (requests - non2xx) / secs,
    p50Ms: Math.max(...runs.map((r) => r.p50Ms)),
    p99Ms: Math.max(...runs.map((r) => r.p99Ms)),
    requests,
    non2xx,
    errors: runs.reduce((n, r) => n + r.errors, 0),
    cpuUs: runs.reduce((n, r) => n + r.cpuUs * r.requests, 0) / Math.max(1, requests),
  };
}

try {
  const common = { TRON_FULL_NODE_URL: devnet.info.url, WORKER_LEASE_TTL: ttl };
  const sqlite = await prepareDatabase('sqlite', dir, common);
  const postgres = await prepareDatabase('postgres', dir, common);
  databases.push(sqlite, postgres);
  const start = async (db: BenchDatabase) => {
    const r = await startReplica(db);
    replicas.push(r);
    return r;
  };
  const one = await start(sqlite);
  const pgA = await start(postgres);
  const pgB = await start(postgres);
  const sqliteIds = await invoicesToRead(one, sqlite.key, 1000);
  const pgIds = await invoicesToRead(pgA, postgres.key, 1000);
  const setups: Setup[] = [
    { name: 'SQLite, one serve', db: sqlite, servers: [one], ids: sqliteIds },
    { name: 'PostgreSQL, one replica', db: postgres, servers: [pgA], ids: pgIds },
    { name: 'PostgreSQL, two replicas', db: postgres, servers: [pgA, pgB], ids: pgIds },
  ];

  for (const s of setups) for (const kind of ['reads', 'creations'] as const) await load(s, kind, 1);
  const runs: Record<string, Record<'reads' | 'creations', Run[]>> = {};
  for (let r = 0; r < rounds; r++) {
    // Each round in another order: a slow phase of the machine does not always hit the same setup.
    const order = setups.map((_, i) => setups[(i + r) % setups.length] as Setup);
    for (const kind of ['reads', 'creations'] as const)
      for (const s of order)
        ((runs[s.name] ??= { reads: [], creations: [] })[kind] as Run[]).push(await load(s, kind, seconds));
    log(
      `round ${r + 1}: ${setups
        .map((s) => {
          const x = runs[s.name]!;
          return `${s.name}: reads ${Math.round(x.reads.at(-1)!.perSecond)}/s, creations ${Math.round(x.creations.at(-1)!.perSecond)}/s`;
        })
        .join('; ')}`,
    );
  }

  const f0 = (n: number) => Math.round(n).toLocaleString('en-US');
  const med = (name: string, kind: 'reads' | 'creations', pick: (x: Run) => number) =>
    median(runs[name]![kind].map(pick));
  log('peak (closed loop), medians of the rounds:');
  for (const s of setups)
    for (const kind of ['reads', 'creations'] as const)
      log(
        `${s.name.padEnd(26)} ${kind.padEnd(9)} ${f0(med(s.name, kind, (x) => x.perSecond)).padStart(7)}/s  p50 ${med(
          s.name,
          kind,
          (x) => x.p50Ms,
        )
          .toFixed(1)
          .padStart(5)} ms  p99 ${med(s.name, kind, (x) => x.p99Ms)
          .toFixed(1)
          .padStart(5)} ms  server CPU ${f0(med(s.name, kind, (x) => x.cpuUs)).padStart(5)} µs/req`,
      );
  for (const s of setups)
    for (const kind of ['reads', 'creations'] as const) {
      const all = runs[s.name]![kind];
      const bad = all.reduce((n, x) => n + x.non2xx + x.errors, 0);
      const total = all.reduce((n, x) => n + x.requests + x.errors, 0);
      if (bad > 0) log(`${s.name}, ${kind}: ${f0(bad)} of ${f0(total)} requests not answered 2xx (mostly 503)`);
    }
  for (const s of setups)
    for (const kind of ['reads', 'creations'] as const)
      summary({ metric: `${kind}/s (2xx): ${s.name}`, value: `${f0(med(s.name, kind, (x) => x.perSecond))}/s` });
  const refused = (name: string) => {
    const all = runs[name]!.creations;
    return (
      all.reduce((n, x) => n + x.non2xx + x.errors, 0) /
      Math.max(
        1,
        all.reduce((n, x) => n + x.requests, 0),
      )
    );
  };
  for (const s of setups)
    summary({ metric: `creations not answered 2xx: ${s.name}`, value: `${(100 * refused(s.name)).toFixed(1)} %` });
  for (const kind of ['reads', 'creations'] as const) {
    const ratio =
      med('PostgreSQL, two replicas', kind, (x) => x.perSecond) /
      med('PostgreSQL, one replica', kind, (x) => x.perSecond);
    summary({ metric: `${kind}: PostgreSQL two replicas / one`, value: ratio.toFixed(2) });
  }

  // Failover: the SQLite server and the throughput rounds are done; only the two replicas run.
  await stopReplica(one);
  log(`failover: ${kills} SIGKILLs of the lease holder, WORKER_LEASE_TTL ${ttl} (renewed every ${ttlMs / 5} ms)`);
  pair.push(pgA, pgB);
  const failovers = await measureFailovers({ db: postgres, replicas: pair, kills, ttlMs, log });
  const lease = failovers.map((f) => f.leaseMs);
  const work = failovers.map((f) => f.workMs);
  log(
    `failover, median (min-max) of ${failovers.length}: lease taken over after ${f0(median(lease))} ms (${f0(Math.min(...lease))}-${f0(Math.max(...lease))}), background work ran again after ${f0(median(work))} ms (${f0(Math.min(...work))}-${f0(Math.max(...work))})`,
  );
  summary({
    metric: `failover: holder killed → lease taken over (median, TTL ${ttl})`,
    value: `${f0(median(lease))} ms`,
  });
  summary({
    metric: `failover: holder killed → background work runs again (median, TTL ${ttl})`,
    value: `${f0(median(work))} ms`,
  });
  summary({ metric: `failover: worst of ${failovers.length} (TTL ${ttl})`, value: `${f0(Math.max(...work))} ms` });
} finally {
  for (const r of [...replicas, ...pair])
    if (r.child.exitCode === null && r.child.signalCode === null) await stopReplica(r);
  await stopChild(devnet.child);
  for (const db of databases) await db.drop();
  rmSync(dir, { recursive: true, force: true });
}

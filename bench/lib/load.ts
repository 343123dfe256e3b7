/**
 * A small closed-loop HTTP load generator for the benchmarks: `concurrency` clients on keep-alive
 * connections send requests back to back for `seconds` (or at a fixed `rate` per second), and the
 * run reports throughput and latency percentiles. Traffic goes to loopback only.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';

export interface LoadRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadOptions {
  url: string;
  concurrency: number;
  seconds: number;
  /** Fixed arrival rate per second (open loop); omitted = as fast as possible. */
  rate?: number;
  request: (i: number) => LoadRequest;
}

export interface LoadResult {
  requests: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  statuses: Record<number, number>;
}

function send(agent: http.Agent, base: URL, req: LoadRequest): Promise<number> {
  return new Promise((resolve, reject) => {
    const r = http.request(
      {
        agent,
        host: base.hostname,
        port: base.port,
        method: req.method,
        path: req.path,
        headers: {
          ...req.headers,
          ...(req.body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(req.body) } : {}),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    r.on('error', reject);
    if (req.body) r.write(req.body);
    r.end();
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const base = new URL(o.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.concurrency });
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  const start = performance.now();
  const end = start + o.seconds * 1000;
  let i = 0;
  const interval = o.rate ? 1000 / o.rate : 0;
  const worker = async () => {
    while (performance.now() < end) {
      const n = i++;
      if (interval) {
        const due = start + n * interval;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        if (performance.now() >= end) break;
      }
      const t0 = performance.now();
      const status = await send(agent, base, o.request(n));
      latencies.push(performance.now() - t0);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    perSecond: Math.round(latencies.length / elapsed),
    p50Ms: Number(percentile(latencies, 50).toFixed(2)),
    p99Ms: Number(percentile(latencies, 99).toFixed(2)),
    statuses,
  };
}

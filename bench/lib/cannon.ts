/**
 * autocannon wrapped for the API benchmarks: one run of a route for a number of seconds, closed
 * loop (as fast as the server answers) or at a fixed overall rate (autocannon corrects latencies
 * for coordinated omission then), reduced to the figures the reports quote.
 */
import autocannon from 'autocannon';
import { cpuSeconds } from './child.js';

export interface Route {
  method: 'GET' | 'POST';
  /** A fixed path, or one per request (e.g. a random invoice id). */
  path: string | (() => string);
  headers?: Record<string, string>;
  /** A body per request (e.g. a new order id each time). */
  body?: () => string;
}

export interface Run {
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** Server CPU time per answered request (µs), when the server's pid was given: robust to other load. */
  cpuUs: number;
}

export interface RunOptions {
  url: string;
  route: Route;
  seconds: number;
  connections: number;
  /** Requests per second over all connections; omitted = closed loop. */
  rate?: number;
  /** The server process, to charge its CPU time to the requests. */
  pid?: number;
}

export async function cannon(o: RunOptions): Promise<Run> {
  const { route } = o;
  const headers = { ...route.headers, ...(route.body ? { 'content-type': 'application/json' } : {}) };
  const dynamic = typeof route.path === 'function' || route.body !== undefined;
  const cpu0 = o.pid ? cpuSeconds(o.pid) : NaN;
  const result = await autocannon({
    url: o.url,
    connections: o.connections,
    duration: o.seconds,
    ...(o.rate ? { overallRate: Math.max(1, Math.round(o.rate)) } : {}),
    requests: [
      {
        method: route.method,
        path: typeof route.path === 'string' ? route.path : '/',
        headers,
        ...(dynamic
          ? {
              setupRequest: (req: Record<string, unknown>) => ({
                ...req,
                ...(typeof route.path === 'function' ? { path: route.path() } : {}),
                ...(route.body ? { body: route.body() } : {}),
              }),
            }
          : {}),
      },
    ],
  });
  return {
    perSecond: result.requests.total / o.seconds,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    cpuUs: ((cpuSeconds(o.pid ?? 0) - cpu0) * 1e6) / Math.max(1, result.requests.total),
  };
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/**
 * The soak's HTTP client for /v1: every answer is counted by status, and any 5xx from `serve` is a
 * violation (with the route and the body). A refused connection while `serve` restarts is counted
 * apart ("down"): it is no answer from `serve`.
 */
import type { ServeProcess } from './serve.js';

export interface ApiAnswer {
  status: number;
  body: any;
}

export class SoakApi {
  readonly statuses: Record<string, number> = {};
  readonly serverErrors: string[] = [];
  /** Requests `serve` accepted but never answered (30 s): a stuck handler, listed as violations. */
  readonly unanswered: string[] = [];
  requests = 0;
  down = 0;

  constructor(private readonly serve: ServeProcess) {}

  /** null: no answer (serve down or restarting). */
  async call(method: 'GET' | 'POST', path: string, key: string, body?: unknown): Promise<ApiAnswer | null> {
    const base = this.serve.url;
    if (!base) {
      this.down += 1;
      return null;
    }
    const headers: Record<string, string> = { 'x-api-key': key };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    let text: string;
    try {
      res = await fetch(base + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      text = await res.text();
    } catch (e) {
      if ((e as Error).name === 'TimeoutError')
        this.unanswered.push(`${method} ${path}: no answer within 30 s (${new Date().toISOString()})`);
      else this.down += 1;
      return null;
    }
    this.requests += 1;
    this.statuses[res.status] = (this.statuses[res.status] ?? 0) + 1;
    if (res.status >= 500) this.serverErrors.push(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed };
  }

  /** Repeats an idempotent request until `serve` answers it (or `give up` passes). */
  async until(
    method: 'GET' | 'POST',
    path: string,
    key: string,
    body: unknown,
    giveUpAt: number,
  ): Promise<ApiAnswer | null> {
    for (;;) {
      const r = await this.call(method, path, key, body);
      if (r) return r;
      if (Date.now() > giveUpAt) return null;
      await sleep(200);
    }
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

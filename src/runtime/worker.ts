/**
 * A background worker: a loop of `tick`s that the worker host (host.ts) runs under the worker
 * lease. A tick does one bounded unit of work and reports whether more is waiting (tick again at
 * once) or not (sleep `intervalMs`).
 */
export interface Worker {
  name: string;
  /** Pause after a tick that found nothing more to do. */
  intervalMs: number;
  /** One unit of work; resolve true when more is waiting. Check `signal` between steps. */
  tick(signal: AbortSignal): Promise<boolean | void>;
}

// The invoice kept current by polling: paused while the tab is hidden, slower when nothing is
// expected to change soon, backing off on 429 (Retry-After) and on failures, and stopped once the
// status can no longer change.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, readInvoice } from './api.js';
import type { PayView } from './types.js';

/** While a payment is awaited or confirming: every few seconds. */
const ACTIVE_MS = 4_000;
/** Before the choice, or after the term (a late payment can still arrive): now and then. */
const IDLE_MS = 15_000;
const MAX_BACKOFF_MS = 60_000;

/** The next read's delay for this view; null when no later status exists. */
function interval(view: PayView): number | null {
  if (view.status === 'settled' || view.status === 'paid_late') return null;
  if (view.asset === null) return IDLE_MS;
  return view.status === 'created' || view.status === 'seen' || view.status === 'confirmed' ? ACTIVE_MS : IDLE_MS;
}

/** One invoice's polling, outside the component so its timer survives re-renders. */
class Poller {
  private timer: number | undefined;
  private backoff = 0;
  private latest: PayView | null = null;
  private stopped = false;

  constructor(
    private readonly id: string,
    private readonly onView: (view: PayView) => void,
    private readonly onError: (error: ApiError | null) => void,
  ) {}

  private schedule(ms: number | null): void {
    window.clearTimeout(this.timer);
    this.timer = undefined;
    if (ms !== null && !document.hidden && !this.stopped) this.timer = window.setTimeout(() => void this.poll(), ms);
  }

  accept(view: PayView): void {
    this.latest = view;
    this.backoff = 0;
    this.onView(view);
    this.onError(null);
    this.schedule(interval(view));
  }

  async poll(): Promise<void> {
    if (this.stopped) return;
    try {
      this.accept(await readInvoice(this.id));
    } catch (e) {
      const failure = e instanceof ApiError ? e : new ApiError(0, 'network', String(e), null);
      this.onError(failure);
      // An unknown link stays unknown: asking again changes nothing.
      if (failure.code === 'invoice_not_found') return this.stop();
      // Never sooner than the usual pace, nor than the service asked (429's Retry-After).
      const usual = this.latest ? (interval(this.latest) ?? IDLE_MS) : ACTIVE_MS;
      this.backoff = Math.min(MAX_BACKOFF_MS, Math.max(usual, this.backoff * 2));
      this.schedule(Math.max(failure.retryAfter === null ? 0 : failure.retryAfter * 1000, this.backoff));
    }
  }

  /** The tab was hidden or shown again. */
  visibility(): void {
    if (document.hidden) this.schedule(null);
    else if (!this.latest || interval(this.latest) !== null) void this.poll();
  }

  stop(): void {
    this.stopped = true;
    this.schedule(null);
  }
}

export interface Live {
  view: PayView | null;
  /** The last failed read (null once a read succeeds again). */
  error: ApiError | null;
  /** Takes a newer view the page got otherwise (the choice's answer). */
  update(view: PayView): void;
  /** Reads now (the countdown reached zero). */
  refresh(): void;
}

export function useLiveInvoice(id: string): Live {
  const [view, setView] = useState<PayView | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [poller] = useState(() => new Poller(id, setView, setError));
  useEffect(() => {
    void poller.poll();
    const onVisibility = () => poller.visibility();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      document.removeEventListener('visibilitychange', onVisibility);
      poller.stop();
    };
  }, [poller]);
  return { view, error, update: (v) => poller.accept(v), refresh: () => void poller.poll() };
}

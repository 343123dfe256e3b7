// The polling of an open view: every few seconds while the tab is visible, paused while it is
// hidden (six open dashboards must not use up the listener's rate limit), slower after a refusal
// (429: at least Retry-After), and a line saying when the view was last brought up to date.
import { ApiError, explain } from './api';
import { h } from '../../shared/dom';

/** How often an open dashboard or detail view asks again (a paid invoice settles in front of you). */
export const POLL_MS = 2000;
/** The longest wait between two attempts after failures. */
const MAX_WAIT_MS = 60_000;

const clockTime = (d: Date) => d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });

export interface Poll {
  /** The line to show under the view's heading. */
  line: HTMLElement;
  stop(): void;
}

/** Runs `load` again and again while `current()` holds; the view has loaded once already. */
export function startPoll(load: () => Promise<void>, current: () => boolean): Poll {
  const line = h('p', { class: 'freshness summary' });
  let last = new Date();
  let wait = POLL_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const say = (text: string) => {
    line.textContent = text;
  };
  const fresh = () => say(`Updates by itself every few seconds · last updated ${clockTime(last)}`);
  const alive = () => !stopped && current();
  const schedule = () => {
    if (alive()) timer = setTimeout(() => void tick(), wait);
  };
  const onVisible = () => {
    if (document.visibilityState !== 'visible') return;
    document.removeEventListener('visibilitychange', onVisible);
    void tick();
  };
  const tick = async () => {
    if (!alive()) return;
    if (document.visibilityState === 'hidden') {
      say(`Paused while this tab is hidden · last updated ${clockTime(last)}`);
      document.addEventListener('visibilitychange', onVisible);
      return;
    }
    try {
      await load();
      last = new Date();
      wait = POLL_MS;
      fresh();
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) return;
      const retryAfter = e instanceof ApiError ? Number(e.retryAfter) * 1000 || 0 : 0;
      wait = Math.min(MAX_WAIT_MS, Math.max(wait * 2, retryAfter));
      const why =
        e instanceof ApiError && e.status === 429 ? 'Too many requests for now' : `Could not update (${explain(e)})`;
      say(`${why}: next try in ${Math.round(wait / 1000)} s · last updated ${clockTime(last)}`);
    }
    schedule();
  };
  fresh();
  schedule();
  return {
    line,
    stop() {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisible);
    },
  };
}

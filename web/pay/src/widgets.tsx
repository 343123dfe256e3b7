// Small pieces of the page: a copy button, the countdown, a polite announcer.
import { useEffect, useState } from 'preact/hooks';
import { serverNow } from './api.js';
import { t, tn } from './i18n.js';

/** Says `text` to screen readers without moving focus (one polite region for the whole page). */
export function announce(text: string): void {
  const region = document.getElementById('announcer');
  if (!region) return;
  region.textContent = '';
  // A change of text is what assistive technology announces: set it on the next frame.
  window.setTimeout(() => (region.textContent = text), 50);
}

/** Copies `value`; the button says so for a moment and the copy is announced. */
export function CopyButton({ value, what }: { value: string; what: string }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const t = window.setTimeout(() => setCopied(false), 2000);
    return () => window.clearTimeout(t);
  }, [copied]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
      announce(t('copy.done', { what }));
    } catch {
      announce(t('copy.failed', { what }));
    }
  };
  return (
    <button type="button" class="copy" onClick={() => void copy()}>
      {copied ? t('copy.copied') : t('copy.copy')}
      <span class="sr-only"> {what}</span>
    </button>
  );
}

/** The seconds left until `deadline` (an ISO time), updated every second. */
export function useSecondsLeft(deadline: string): number {
  const end = Date.parse(deadline);
  const left = () => Math.max(0, Math.ceil((end - serverNow()) / 1000));
  const [seconds, setSeconds] = useState(left);
  useEffect(() => {
    setSeconds(left());
    const t = window.setInterval(() => setSeconds(left()), 1000);
    return () => window.clearInterval(t);
  }, [end]);
  return seconds;
}

/** 3725 → "1:02:05", 65 → "1:05". */
export function clock(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** Minutes and seconds in words, for the screen reader's reading of the timer. */
function spoken(seconds: number): string {
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  const parts = [m > 0 ? tn('time.minutes', m) : '', s > 0 || m === 0 ? tn('time.seconds', s) : ''];
  return t('time.left', { time: parts.filter(Boolean).join(' ') });
}

/**
 * The time left (to pay, or to choose a token), under `label`; `onEnd` once it reaches zero (the
 * page then asks for the status).
 */
export function Countdown({ deadline, onEnd, label }: { deadline: string; onEnd: () => void; label: string }) {
  const seconds = useSecondsLeft(deadline);
  useEffect(() => {
    if (seconds === 0) onEnd();
    // Only the moment it reaches zero matters, not each second.
  }, [seconds === 0]);
  if (seconds === 0) return <p class="countdown over">{t('countdown.over')}</p>;
  return (
    <p class={seconds < 300 ? 'countdown soon' : 'countdown'}>
      {label}{' '}
      <span role="timer" aria-label={spoken(seconds)}>
        {clock(seconds)}
      </span>
    </p>
  );
}

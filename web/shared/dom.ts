// Small DOM helpers. Text always goes in as text (textContent), never as HTML.

export type Child = Node | string | number | null | undefined | false | Child[];
type Props = Record<string, string | number | boolean | null | undefined | EventListener>;

/** An element with attributes (`on…` are listeners, `text` its text) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = String(value);
    else if (key === 'text') el.textContent = String(value);
    else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el: Element, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

/** The nodes of children, for replaceChildren (nothing for null, never the word "null"). */
export function nodes(...children: Child[]): Array<Node | string> {
  const out: Array<Node | string> = [];
  const walk = (list: Child[]) => {
    for (const c of list) {
      if (c === null || c === undefined || c === false) continue;
      if (Array.isArray(c)) walk(c);
      else out.push(c instanceof Node ? c : String(c));
    }
  };
  walk(children);
  return out;
}

/** A timestamp as `2026-05-01 10:00:00 UTC` (every time the API gives is UTC). */
export function time(iso: string | null | undefined): string {
  if (!iso) return '—';
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

const TONES: Record<string, string> = {
  settled: 'good',
  confirmed: 'good',
  delivered: 'good',
  active: 'good',
  approved: 'good',
  enabled: 'good',
  created: 'neutral',
  seen: 'info',
  queued: 'info',
  signing: 'info',
  broadcast: 'info',
  pending: 'warn',
  pending_review: 'warn',
  retry: 'warn',
  retrying: 'warn',
  underpaid: 'warn',
  // Money that came late or in the wrong amount asks the owner to look: a warning, never green.
  paid_late: 'warn',
  overpaid: 'warn',
  expired: 'muted',
  revoked: 'muted',
  rejected: 'bad',
  failed: 'bad',
  disabled: 'bad',
};

/** A status as a labelled badge (its text is the status; the colour only repeats it). */
export function badge(status: string): HTMLSpanElement {
  return h('span', { class: `badge ${TONES[status] ?? 'neutral'}` }, status.replace(/_/g, ' '));
}

/**
 * A table with a caption and column headers; `rows` are arrays of cells (text or elements).
 * An empty list says so instead of showing an empty table.
 */
export type Column = string | { label: string; num: true };
export const numeric = (label: string): Column => ({ label, num: true });

export function table(caption: string, columns: Column[], rows: Child[][], empty = 'Nothing yet.'): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'empty' }, `${caption}: ${empty}`);
  const label = (c: Column | undefined) => (typeof c === 'object' ? c.label : (c ?? ''));
  // Amounts line up on the right, column header included.
  const cls = (i: number) => (typeof columns[i] === 'object' ? 'num' : undefined);
  return h(
    'div',
    // On a desk the frame scrolls a wide table; under 600 px each row is a card (the stylesheet),
    // its cells labelled by `data-label`, so nothing needs a sideways scroll. Reachable by keyboard.
    { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': caption },
    h(
      'table',
      { class: 'cards' },
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, ...columns.map((c, i) => h('th', { scope: 'col', class: cls(i) }, label(c))))),
      h(
        'tbody',
        {},
        ...rows.map((cells) =>
          h('tr', {}, ...cells.map((c, i) => h('td', { class: cls(i), 'data-label': label(columns[i]) }, c ?? '—'))),
        ),
      ),
    ),
  );
}

/** A definition list of [term, value] pairs. */
export function fields(pairs: Array<[string, Child]>): HTMLDListElement {
  return h('dl', { class: 'fields' }, ...pairs.map(([term, value]) => [h('dt', {}, term), h('dd', {}, value ?? '—')]));
}

let announced: ReturnType<typeof setTimeout> | undefined;
let pending: ReturnType<typeof setTimeout> | undefined;

/** Takes the last announcement off the screen (a failure must not sit under an old success). */
export function clearAnnouncement(): void {
  clearTimeout(announced);
  clearTimeout(pending);
  const status = document.getElementById('status');
  if (status) status.textContent = '';
}
/**
 * Says something to screen readers and on screen, without moving focus. `persist`: it stays until
 * the next announcement (what the reader must act on, such as wrong codes seen at sign-in).
 */
export function announce(text: string, opts: { persist?: boolean } = {}): void {
  const status = document.getElementById('status') as HTMLElement;
  status.textContent = '';
  clearTimeout(announced);
  clearTimeout(pending);
  // A change of text is what assistive technology announces; it goes again after a while.
  pending = setTimeout(() => (status.textContent = text), 30);
  if (!opts.persist) announced = setTimeout(() => (status.textContent = ''), 8000);
}

/** A form error shown beside the form and announced at once. */
export function errorBox(): HTMLParagraphElement {
  return h('p', { class: 'error', role: 'alert', hidden: true });
}

/** Shows (or clears) a form error; a new error also clears an earlier success message. */
export function showError(box: HTMLElement, text: string): void {
  if (text) clearAnnouncement();
  box.textContent = text;
  box.hidden = !text;
}

export function link(href: string, text: Child, props: Props = {}): HTMLAnchorElement {
  return h('a', { href, ...props }, text);
}

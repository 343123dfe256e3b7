// Small DOM helpers. Text always goes in as text (textContent), never as HTML.

/** An element with attributes (`on…` are listeners, `text` its text) and children. */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'text') el.textContent = value;
    else if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** A timestamp as `2026-05-01 10:00:00 UTC` (every time the API gives is UTC). */
export function time(iso) {
  if (!iso) return '—';
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

const TONES = {
  settled: 'good',
  confirmed: 'good',
  delivered: 'good',
  active: 'good',
  approved: 'good',
  enabled: 'good',
  paid_late: 'good',
  created: 'neutral',
  seen: 'info',
  queued: 'info',
  signing: 'info',
  broadcast: 'info',
  pending: 'warn',
  pending_review: 'warn',
  retry: 'warn',
  underpaid: 'warn',
  expired: 'muted',
  revoked: 'muted',
  rejected: 'bad',
  failed: 'bad',
  disabled: 'bad',
};

/** A status as a labelled badge (its text is the status; the colour only repeats it). */
export function badge(status) {
  return h('span', { class: `badge ${TONES[status] ?? 'neutral'}` }, status.replace(/_/g, ' '));
}

/**
 * A table with a caption and column headers; `rows` are arrays of cells (text or elements).
 * An empty list says so instead of showing an empty table.
 */
export function table(caption, columns, rows, empty = 'Nothing yet.') {
  if (rows.length === 0) return h('p', { class: 'empty' }, `${caption}: ${empty}`);
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      {},
      h('caption', {}, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          columns.map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((cells) =>
          h(
            'tr',
            {},
            cells.map((c) => h('td', {}, c ?? '—')),
          ),
        ),
      ),
    ),
  );
}

/** A definition list of [term, value] pairs. */
export function fields(pairs) {
  return h(
    'dl',
    { class: 'fields' },
    pairs.map(([term, value]) => [h('dt', {}, term), h('dd', {}, value ?? '—')]),
  );
}

/** Says something to screen readers and on screen, without moving focus. */
let announced = null;
export function announce(text) {
  const status = document.getElementById('status');
  status.textContent = '';
  clearTimeout(announced);
  // A change of text is what assistive technology announces; it goes again after a while.
  setTimeout(() => (status.textContent = text), 30);
  announced = setTimeout(() => (status.textContent = ''), 8000);
}

/** A form error shown beside the form and announced at once. */
export function errorBox() {
  return h('p', { class: 'error', role: 'alert', hidden: true });
}

export function showError(box, text) {
  box.textContent = text;
  box.hidden = !text;
}

export function link(href, text, props = {}) {
  return h('a', { href, ...props }, text);
}

// Report downloads: the period's days both included (as in the lists' filters), fetched first so a
// refusal is said beside the form instead of a download the browser cancels without a word.
import { ApiError, explain, withQuery } from '../api';
import { errorBox, h, showError } from '../../../shared/dom';
import type { ViewContext } from '../types';
import { period } from './lists';

const KINDS = ['invoices', 'payouts', 'deposits', 'ledger'] as const;

async function refusalOf(res: Response): Promise<string> {
  const body: unknown = await res.json().catch(() => null);
  const error = new ApiError(res.status, body);
  error.retryAfter = res.headers.get('retry-after');
  return `The report was refused: ${explain(error)
    .replace(/^from /, 'From ')
    .replace(/^to /, 'To ')}`;
}

export async function reportsView(ctx: ViewContext): Promise<void> {
  const kind = h('select', { id: 'r-kind', name: 'kind' }, ...KINDS.map((k) => h('option', { value: k }, k)));
  const from = h('input', { id: 'r-from', name: 'from', type: 'date', required: true });
  const to = h('input', { id: 'r-to', name: 'to', type: 'date', required: true });
  const format = h(
    'select',
    { id: 'r-format', name: 'format' },
    h('option', { value: 'csv' }, 'CSV'),
    h('option', { value: 'json' }, 'JSON'),
  );
  const error = errorBox();
  const done = h('p', { class: 'summary', role: 'status' });
  const button = h('button', { type: 'submit' }, 'Download');
  const form = h(
    'form',
    { class: 'filters', novalidate: true },
    h('div', { class: 'field' }, h('label', { for: 'r-kind' }, 'Report'), kind),
    h('div', { class: 'field' }, h('label', { for: 'r-from' }, 'From (UTC day)'), from),
    h('div', { class: 'field' }, h('label', { for: 'r-to' }, 'To (UTC day, included)'), to),
    h('div', { class: 'field' }, h('label', { for: 'r-format' }, 'Format'), format),
    button,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    showError(error, '');
    done.textContent = '';
    if (!from.value || !to.value) return showError(error, 'Choose both days.');
    const checked = period(from.value, to.value);
    if (typeof checked === 'string') return showError(error, checked);
    const url = withQuery(`/cabinet/v1/merchants/${encodeURIComponent(ctx.merchantId)}/reports/${kind.value}`, {
      ...checked,
      format: format.value,
    });
    button.disabled = true;
    try {
      const res = await fetch(url, { credentials: 'same-origin', cache: 'no-store' });
      if (!res.ok) return showError(error, await refusalOf(res));
      const file = URL.createObjectURL(await res.blob());
      const name = `${kind.value}-${from.value}-to-${to.value}.${format.value}`;
      const a = h('a', { href: file, download: name });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(file), 60_000);
      done.textContent = `Downloaded ${name}.`;
    } catch (err) {
      showError(error, explain(err));
    } finally {
      button.disabled = false;
    }
  });
  ctx.show(
    'Reports',
    h('p', {}, 'Every record of the days from From to To, both included, one row each, for this merchant.'),
    form,
    error,
    done,
  );
}

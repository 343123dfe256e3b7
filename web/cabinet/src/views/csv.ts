// "Download CSV" under a list: a plain link to the list's own route with its filters and
// format=csv, so the browser saves the server's stream straight to a file (a long list never sits
// in the page's memory). The session cookie rides along as on every same-origin request.
import { h } from '../../../shared/dom';
import { withQuery } from '../api';

export function csvLink(
  merchantId: string,
  list: string,
  filters: Record<string, string | number | undefined | null>,
): HTMLElement {
  const href = withQuery(`/cabinet/v1/merchants/${encodeURIComponent(merchantId)}/${list}`, {
    ...filters,
    format: 'csv',
  });
  return h(
    'p',
    { class: 'actions export' },
    h('a', { href, download: `${list}.csv`, class: 'button secondary' }, 'Download CSV'),
    h('span', { class: 'hint' }, 'Every row these filters match, not only this page.'),
  );
}

// The cabinet page: a router over the location's hash, the signed-in layout (merchant switcher,
// sections), and the polling that keeps the open view current. Only /cabinet/v1 is called.
import { call, get, setCsrfToken, whenSignedOut } from './api';
import { announce, h, type Child } from './dom';
import type { Account, ViewContext } from './types';
import { setupView, signInView } from './views/auth';
import { dashboardView } from './views/dashboard';
import { deliveriesView, deliveryView } from './views/deliveries';
import { invoicesView, invoiceView, payoutsView, payoutView } from './views/activity';
import { keysView, reportsView, settingsView } from './views/settings';

/** How often an open dashboard or detail view asks again (a paid invoice settles in front of you). */
export const POLL_MS = 2000;

const state: { account: Account | null; reports: boolean; statuses: Record<string, string[]> } = {
  account: null,
  reports: false,
  statuses: {},
};
let timer: ReturnType<typeof setInterval> | null = null;
let generation = 0;

const SECTIONS: Array<[string, string]> = [
  ['', 'Dashboard'],
  ['/invoices', 'Invoices'],
  ['/payouts', 'Payouts'],
  ['/keys', 'API keys'],
  ['/deliveries', 'Webhooks'],
  ['/settings', 'Settings'],
];

type Route =
  | { name: 'setup'; token: string }
  | { name: 'sign-in' | 'home'; merchantId?: undefined }
  | { name: string; merchantId: string; id: string | undefined; query: Record<string, string> };

function route(): Route {
  const hash = location.hash;
  if (hash.startsWith('#setup=')) return { name: 'setup', token: hash.slice('#setup='.length) };
  const [path, queryText] = hash.replace(/^#/, '').split('?');
  const query = Object.fromEntries(new URLSearchParams(queryText ?? ''));
  const parts = (path ?? '').split('/').filter(Boolean);
  if (parts[0] === 'sign-in') return { name: 'sign-in' };
  if (parts[0] === 'm' && parts[1]) {
    const [, merchantId, section = '', id] = parts;
    return { name: section || 'dashboard', merchantId, id, query };
  }
  return { name: 'home' };
}

function renderSession(): void {
  const box = document.getElementById('session') as HTMLElement;
  box.replaceChildren();
  if (!state.account) return;
  box.append(
    h('span', { class: 'who' }, `Signed in as ${state.account.email}`),
    h('button', { type: 'button', class: 'secondary', onclick: () => void signOut() }, 'Sign out'),
  );
}

function renderNav(merchantId: string | null, current = ''): void {
  const nav = document.getElementById('nav') as HTMLElement;
  nav.replaceChildren();
  nav.hidden = !state.account || !merchantId;
  if (!state.account || !merchantId) return;
  // A form with its own button: choosing in the list moves nothing until the reader says so.
  const select = h(
    'select',
    { id: 'merchant-switch', name: 'merchant' },
    ...state.account.merchants.map((m) =>
      h('option', { value: m.merchant_id, selected: m.merchant_id === merchantId }, m.name),
    ),
  );
  const switcher = h(
    'form',
    { class: 'switcher', 'aria-label': 'Merchant switcher' },
    h('label', { for: 'merchant-switch' }, 'Merchant'),
    select,
    h('button', { type: 'submit', class: 'small' }, 'Switch'),
  );
  switcher.addEventListener('submit', (e) => {
    e.preventDefault();
    location.hash = `#/m/${select.value}${current === 'dashboard' ? '' : `/${current.split('/')[0]}`}`;
  });
  const sections: Array<[string, string]> = [
    ...SECTIONS,
    ...(state.reports ? [['/reports', 'Reports'] as [string, string]] : []),
  ];
  nav.append(
    switcher,
    h(
      'ul',
      {},
      ...sections.map(([tail, label]) => {
        const here = (tail.slice(1) || 'dashboard') === current;
        return h('li', {}, h('a', { href: `#/m/${merchantId}${tail}`, 'aria-current': here ? 'page' : false }, label));
      }),
    ),
  );
}

async function signOut(): Promise<void> {
  try {
    await call('delete', '/cabinet/v1/sessions/current');
  } catch {
    // Ended already: the sign-in follows either way.
  }
  signedOut('You are signed out.');
}

function signedOut(message: string): void {
  state.account = null;
  setCsrfToken(null);
  renderSession();
  if (location.hash !== '#/sign-in') location.hash = '#/sign-in';
  else void render();
  if (message) announce(message);
}

/** The values of the `status` filter of a merchant's list in the API document (none without it). */
function statusesOf(doc: unknown, list: string): string[] {
  type Doc = {
    paths?: Record<
      string,
      { get?: { parameters?: Array<{ in: string; name: string; schema?: { enum?: string[] } }> } }
    >;
  };
  const op = (doc as Doc | null)?.paths?.[`/cabinet/v1/merchants/{merchant_id}/${list}`]?.get;
  const status = (op?.parameters ?? []).find((p) => p.in === 'query' && p.name === 'status');
  return status?.schema?.enum ?? [];
}

/** Reads the session (cookie) and the account; false when there is none. */
async function loadSession(): Promise<boolean> {
  try {
    const session = await call('get', '/cabinet/v1/sessions/current', { quiet: true });
    setCsrfToken(session.csrf_token ?? null);
    state.account = await get('/cabinet/v1/account');
  } catch {
    state.account = null;
    return false;
  }
  // Reports are served once this installation has them, and a list's statuses are the ones its
  // filter takes: the page asks its own API document rather than keep copies.
  const doc: unknown = await fetch('/cabinet/v1/openapi.json')
    .then((r) => r.json())
    .catch(() => null);
  state.reports = Object.keys((doc as { paths?: object } | null)?.paths ?? {}).some((p) => p.includes('/reports/'));
  state.statuses = { invoices: statusesOf(doc, 'invoices'), payouts: statusesOf(doc, 'payouts') };
  renderSession();
  return true;
}

const VIEWS: Record<string, (ctx: ViewContext & { statuses: Record<string, string[]> }) => Promise<void>> = {
  dashboard: dashboardView,
  invoices: (ctx) => (ctx.id ? invoiceView(ctx) : invoicesView(ctx)),
  payouts: (ctx) => (ctx.id ? payoutView(ctx) : payoutsView(ctx)),
  keys: keysView,
  deliveries: (ctx) => (ctx.id ? deliveryView(ctx) : deliveriesView(ctx)),
  settings: settingsView,
  reports: reportsView,
};

async function render(): Promise<void> {
  if (timer) clearInterval(timer);
  timer = null;
  const mine = ++generation;
  const r = route();
  const main = document.getElementById('view') as HTMLElement;
  const show = (title: string, ...content: Child[]): HTMLElement | null => {
    if (mine !== generation) return null;
    document.title = `${title} · paygate cabinet`;
    const heading = h('h1', {}, title);
    main.replaceChildren(heading, ...(content as Array<Node | string>));
    return heading;
  };
  if (r.name === 'setup' && 'token' in r) {
    renderNav(null);
    return setupView({ show, token: r.token, done: afterSignIn });
  }
  const account = state.account;
  if (!account) {
    renderNav(null);
    return signInView({ show, done: afterSignIn });
  }
  if (!('merchantId' in r) || !r.merchantId || !('query' in r)) {
    const first = account.merchants[0];
    if (first) location.hash = `#/m/${first.merchant_id}`;
    else show('No merchant yet', h('p', {}, 'The operator has not given this account a merchant yet.'));
    return;
  }
  const merchant = account.merchants.find((m) => m.merchant_id === r.merchantId);
  const view = VIEWS[r.name];
  renderNav(r.merchantId, r.name);
  if (!merchant || !view) {
    show('Not found', h('p', {}, 'This account has no such merchant or page.'));
    return;
  }
  const ctx = {
    merchant,
    merchantId: r.merchantId,
    id: r.id,
    query: r.query,
    account,
    params: { merchant_id: r.merchantId },
    statuses: state.statuses,
    show,
    poll(fn: () => Promise<void>) {
      if (mine !== generation) return;
      timer = setInterval(() => {
        if (mine === generation) fn().catch(() => undefined);
      }, POLL_MS);
    },
    async reloadAccount() {
      state.account = await get('/cabinet/v1/account');
    },
  };
  try {
    await view(ctx);
  } catch (e) {
    const err = e as { status?: number; message?: string };
    if (err?.status !== 401) show('Something went wrong', h('p', { class: 'error' }, String(err?.message ?? e)));
  }
}

async function afterSignIn(): Promise<void> {
  await loadSession();
  const first = state.account?.merchants[0];
  location.hash = first ? `#/m/${first.merchant_id}` : '#/';
  announce(`Signed in as ${state.account?.email ?? ''}`);
}

whenSignedOut(() => signedOut('Your session has ended; please sign in again.'));
window.addEventListener('hashchange', () => {
  void render().then(() => (document.getElementById('view') as HTMLElement).focus({ preventScroll: false }));
});
void loadSession().then(render);

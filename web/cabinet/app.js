// The cabinet page: a router over the location's hash, the signed-in layout (merchant switcher,
// sections), and the polling that keeps the open view current. Only /cabinet/v1 is called.
import { call, get, setCsrfToken, whenSignedOut } from './api.js';
import { h, announce } from './dom.js';
import { setupView, signInView } from './views/auth.js';
import { dashboardView } from './views/dashboard.js';
import { deliveriesView, deliveryView } from './views/deliveries.js';
import { invoicesView, invoiceView, payoutsView, payoutView } from './views/activity.js';
import { keysView, reportsView, settingsView } from './views/settings.js';

/** How often an open dashboard or detail view asks again (a paid invoice settles in front of you). */
export const POLL_MS = 2000;

const state = { account: null, reports: false, statuses: {} };
let timer = null;
let generation = 0;

const SECTIONS = [
  ['', 'Dashboard'],
  ['/invoices', 'Invoices'],
  ['/payouts', 'Payouts'],
  ['/keys', 'API keys'],
  ['/deliveries', 'Webhooks'],
  ['/settings', 'Settings'],
];

function route() {
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

function renderSession() {
  const box = document.getElementById('session');
  box.replaceChildren();
  if (!state.account) return;
  box.append(
    h('span', { class: 'who' }, `Signed in as ${state.account.email}`),
    h('button', { type: 'button', class: 'secondary', onclick: signOut }, 'Sign out'),
  );
}

function renderNav(merchantId, current) {
  const nav = document.getElementById('nav');
  nav.replaceChildren();
  nav.hidden = !state.account || !merchantId;
  if (nav.hidden) return;
  const merchants = state.account.merchants;
  // A form with its own button: choosing in the list moves nothing until the reader says so.
  const select = h(
    'select',
    { id: 'merchant-switch', name: 'merchant' },
    merchants.map((m) => h('option', { value: m.merchant_id, selected: m.merchant_id === merchantId }, m.name)),
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
  const sections = [...SECTIONS, ...(state.reports ? [['/reports', 'Reports']] : [])];
  nav.append(
    switcher,
    h(
      'ul',
      {},
      sections.map(([tail, label]) => {
        const here = (tail.slice(1) || 'dashboard') === current;
        return h('li', {}, h('a', { href: `#/m/${merchantId}${tail}`, 'aria-current': here ? 'page' : false }, label));
      }),
    ),
  );
}

async function signOut() {
  try {
    await call('DELETE', '/sessions/current');
  } catch {
    // Ended already: the sign-in follows either way.
  }
  signedOut('You are signed out.');
}

function signedOut(message) {
  state.account = null;
  setCsrfToken(null);
  renderSession();
  if (location.hash !== '#/sign-in') location.hash = '#/sign-in';
  else render();
  if (message) announce(message);
}

/** Reads the session (cookie) and the account; false when there is none. */
export async function loadSession() {
  try {
    const session = await call('GET', '/sessions/current', undefined, { quiet: true });
    setCsrfToken(session.csrf_token);
    state.account = await get('/account');
  } catch {
    state.account = null;
    return false;
  }
  // Reports are served once this installation has them, and a list's statuses are the ones its
  // filter takes: the page asks its own API document rather than keep copies.
  const doc = await get('/openapi.json').catch(() => null);
  state.reports = Object.keys(doc?.paths ?? {}).some((p) => p.includes('/reports/'));
  state.statuses = { invoices: statusesOf(doc, 'invoices'), payouts: statusesOf(doc, 'payouts') };
  renderSession();
  return true;
}

/** The values of the `status` filter of a merchant's list in the API document (none without it). */
function statusesOf(doc, list) {
  const op = doc?.paths?.[`/cabinet/v1/merchants/{merchant_id}/${list}`]?.get;
  const status = (op?.parameters ?? []).find((p) => p.in === 'query' && p.name === 'status');
  return status?.schema?.enum ?? [];
}

const VIEWS = {
  dashboard: dashboardView,
  invoices: (ctx) => (ctx.id ? invoiceView(ctx) : invoicesView(ctx)),
  payouts: (ctx) => (ctx.id ? payoutView(ctx) : payoutsView(ctx)),
  keys: keysView,
  deliveries: (ctx) => (ctx.id ? deliveryView(ctx) : deliveriesView(ctx)),
  settings: settingsView,
  reports: reportsView,
};

async function render() {
  clearInterval(timer);
  timer = null;
  const mine = ++generation;
  const r = route();
  const main = document.getElementById('view');
  const show = (title, ...content) => {
    if (mine !== generation) return null;
    document.title = `${title} · paygate cabinet`;
    const heading = h('h1', {}, title);
    main.replaceChildren(heading, ...content);
    return heading;
  };
  if (r.name === 'setup') {
    renderNav(null);
    return setupView({ show, token: r.token, done: afterSignIn });
  }
  if (!state.account) {
    renderNav(null);
    return signInView({ show, done: afterSignIn });
  }
  if (r.name === 'home' || r.name === 'sign-in' || !r.merchantId) {
    const first = state.account.merchants[0];
    if (first) location.hash = `#/m/${first.merchant_id}`;
    else show('No merchant yet', h('p', {}, 'The operator has not given this account a merchant yet.'));
    return;
  }
  const merchant = state.account.merchants.find((m) => m.merchant_id === r.merchantId);
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
    account: state.account,
    base: `/merchants/${r.merchantId}`,
    /** The statuses a list can be filtered by, from the API document. */
    statuses: state.statuses,
    show,
    /** Refreshes the open view every POLL_MS until the reader goes elsewhere. */
    poll(fn) {
      if (mine !== generation) return;
      timer = setInterval(() => {
        if (mine === generation) fn().catch(() => undefined);
      }, POLL_MS);
    },
    /** The account again (after a change of a merchant's switches). */
    async reloadAccount() {
      state.account = await get('/account');
    },
  };
  try {
    await view(ctx);
  } catch (e) {
    if (e?.status !== 401) show('Something went wrong', h('p', { class: 'error' }, String(e?.message ?? e)));
  }
}

async function afterSignIn() {
  await loadSession();
  const first = state.account?.merchants[0];
  location.hash = first ? `#/m/${first.merchant_id}` : '#/';
  announce(`Signed in as ${state.account?.email ?? ''}`);
}

whenSignedOut(() => signedOut('Your session has ended; please sign in again.'));
window.addEventListener('hashchange', () => {
  render().then(() => document.getElementById('view').focus({ preventScroll: false }));
});
loadSession().then(render);

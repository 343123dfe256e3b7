// The cabinet page: a router over the location's hash, the signed-in layout (merchant switcher,
// sections), and the polling that keeps the open view current. Only /cabinet/v1 is called.
import { ApiError, call, explain, get, setCsrfToken, whenSignedOut } from './api';
import { announce, h, nodes, type Child } from '../../shared/dom';
import { startPoll, type Poll } from './poll';
import { canChange } from './roles';
import type { Account, ViewContext } from './types';
import { setupView, signInView } from './views/auth';
import { dashboardView } from './views/dashboard';
import { deliveriesView, deliveryView } from './views/deliveries';
import { invoiceView, payoutView } from './views/details';
import { exceptionsView } from './views/exceptions';
import { invoicesView, payoutsView } from './views/lists';
import { paymentLinkView } from './views/payment-link';
import { reportsView } from './views/reports';
import { refundsView } from './views/refunds';
import { membersView } from './views/members';
import { keysView, settingsView } from './views/settings';
import { accountView } from './views/account';

const state: { account: Account | null; merchantId: string | null } = { account: null, merchantId: null };
let poll: Poll | null = null;
let generation = 0;

const SECTIONS: Array<[string, string]> = [
  ['', 'Dashboard'],
  ['/invoices', 'Invoices'],
  ['/payouts', 'Payouts'],
  ['/exceptions', 'Exceptions'],
  ['/refunds', 'Refunds'],
  ['/keys', 'API keys'],
  ['/deliveries', 'Webhooks'],
  ['/settings', 'Settings'],
  ['/members', 'Team'],
  ['/reports', 'Reports'],
];

type Route =
  | { name: 'setup'; token: string }
  | { name: 'sign-in' | 'home' | 'account'; merchantId?: undefined }
  | { name: string; merchantId: string; id: string | undefined; query: Record<string, string> };

function route(): Route {
  const hash = location.hash;
  if (hash.startsWith('#setup=')) return { name: 'setup', token: hash.slice('#setup='.length) };
  const [path, queryText] = hash.replace(/^#/, '').split('?');
  const query = Object.fromEntries(new URLSearchParams(queryText ?? ''));
  const parts = (path ?? '').split('/').filter(Boolean);
  if (parts[0] === 'sign-in') return { name: 'sign-in' };
  if (parts[0] === 'account') return { name: 'account' };
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
    h('span', { class: 'who' }, state.account.email),
    h(
      'a',
      { href: '#/account', class: 'account-link', 'aria-current': route().name === 'account' ? 'page' : false },
      'Account',
    ),
    h('button', { type: 'button', class: 'secondary small', onclick: () => void signOut() }, 'Sign out'),
  );
}

function renderNav(merchantId: string | null, current = ''): void {
  const nav = document.getElementById('nav') as HTMLElement;
  nav.replaceChildren();
  nav.hidden = !state.account || !merchantId;
  if (!state.account || !merchantId) return;
  const held = state.account.merchants.find((m) => m.merchant_id === merchantId);
  const owner = held !== undefined && canChange(held);
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
    const stay = current === 'dashboard' || current === 'account' ? '' : `/${current.split('/')[0]}`;
    location.hash = `#/m/${select.value}${stay}`;
  });
  nav.replaceChildren(
    h(
      'ul',
      {},
      // Who holds the merchant is its owners' to see and change: a viewer has no Team section.
      ...SECTIONS.filter(([tail]) => tail !== '/members' || owner).map(([tail, label]) => {
        const here = (tail.slice(1) || 'dashboard') === current;
        return h('li', {}, h('a', { href: `#/m/${merchantId}${tail}`, 'aria-current': here ? 'page' : false }, label));
      }),
    ),
    // The sections first (what a phone shows without scrolling along); one merchant needs no switcher.
    ...nodes(state.account.merchants.length > 1 ? switcher : null),
  );
}

async function signOut(): Promise<void> {
  try {
    await call('delete', '/cabinet/v1/sessions/current');
  } catch {
    // Ended already: the sign-in follows either way.
  }
  signedOut('You are signed out.', false);
}

/** Back to the sign-in; an ended session keeps the address, so signing in again returns there. */
function signedOut(message: string, keepAddress: boolean): void {
  state.account = null;
  setCsrfToken(null);
  renderSession();
  if (!keepAddress && location.hash !== '#/sign-in') location.hash = '#/sign-in';
  else void render();
  if (message) announce(message);
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
  renderSession();
  return true;
}

const VIEWS: Record<string, (ctx: ViewContext) => Promise<void>> = {
  dashboard: dashboardView,
  invoices: (ctx) => (ctx.id === 'new' ? paymentLinkView(ctx) : ctx.id ? invoiceView(ctx) : invoicesView(ctx)),
  payouts: (ctx) => (ctx.id ? payoutView(ctx) : payoutsView(ctx)),
  exceptions: exceptionsView,
  refunds: refundsView,
  members: membersView,
  keys: keysView,
  deliveries: (ctx) => (ctx.id ? deliveryView(ctx) : deliveriesView(ctx)),
  settings: settingsView,
  reports: reportsView,
};

async function render(): Promise<void> {
  poll?.stop();
  poll = null;
  const mine = ++generation;
  const r = route();
  const main = document.getElementById('view') as HTMLElement;
  const show = (title: string, ...content: Child[]): HTMLElement | null => {
    if (mine !== generation) return null;
    document.title = `${title} · paygate cabinet`;
    const heading = h('h1', {}, title);
    main.replaceChildren(heading, ...nodes(content));
    return heading;
  };
  renderSession();
  if (r.name === 'setup' && 'token' in r) {
    renderNav(null);
    return setupView({ show, token: r.token, done: afterSignIn });
  }
  const account = state.account;
  if (!account) {
    renderNav(null);
    return signInView({ show, done: afterSignIn });
  }
  if (r.name === 'account') {
    renderNav(state.merchantId ?? account.merchants[0]?.merchant_id ?? null, 'account');
    return accountView({ show, reloadAccount: loadAccount }).catch((e: unknown) => {
      if (!(e instanceof ApiError && e.status === 401))
        show('Something went wrong', h('p', { class: 'error' }, explain(e)));
    });
  }
  if (!('merchantId' in r) || !r.merchantId || !('query' in r)) {
    const first = account.merchants[0];
    if (first) location.hash = `#/m/${first.merchant_id}`;
    else show('No merchant yet', h('p', {}, 'The operator has not given this account a merchant yet.'));
    return;
  }
  const merchant = account.merchants.find((m) => m.merchant_id === r.merchantId);
  if (merchant) state.merchantId = merchant.merchant_id;
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
    show,
    poll(fn: () => Promise<void>) {
      if (mine !== generation) return;
      poll = startPoll(fn, () => mine === generation);
      main.querySelector('h1')?.after(poll.line);
    },
    reloadAccount: loadAccount,
  };
  try {
    await view(ctx);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return;
    // A record this account does not have, or an id that cannot be one: the same answer.
    if (
      e instanceof ApiError &&
      (e.status === 404 || (e.status === 400 && e.details.some((d) => d.path.startsWith('params.'))))
    )
      show(
        'Not found',
        h('p', {}, 'This account has no such record. '),
        h('p', {}, h('a', { href: `#/m/${r.merchantId}/${r.name}` }, 'Back to the list')),
      );
    else show('Something went wrong', h('p', { class: 'error' }, explain(e)));
  }
}

async function loadAccount(): Promise<void> {
  state.account = await get('/cabinet/v1/account');
}

async function afterSignIn(notice?: string): Promise<void> {
  await loadSession();
  if (notice) announce(`Signed in. ${notice}`, { persist: true });
  else announce(`Signed in as ${state.account?.email ?? ''}`);
  // A deep link opened before signing in is where the owner meant to go.
  const deep = route();
  if ('merchantId' in deep && deep.merchantId) return render();
  const first = state.account?.merchants[0];
  location.hash = first ? `#/m/${first.merchant_id}` : '#/';
}

whenSignedOut(() => signedOut('Your session has ended; please sign in again.', true));
window.addEventListener('hashchange', () => {
  void render().then(() => (document.getElementById('view') as HTMLElement).focus({ preventScroll: false }));
});
void loadSession().then(render);

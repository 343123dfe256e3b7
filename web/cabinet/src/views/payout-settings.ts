// The merchant's webhook endpoint (self-service: URL, secret, a test event) and its payout rules
// (limits and the whitelist, read only: the operator sets them).
import { call, explain, get } from '../api';
import { announce, errorBox, fields, h, nodes, numeric, showError, table, type Child } from '../../../shared/dom';
import { assetName, chainRef, copyButton, when } from '../../../shared/format';
import type { Merchant, ViewContext } from '../types';
import { canChange, viewerNote } from '../roles';

function section(id: string, title: string, ...content: Child[]): HTMLElement {
  return h('section', { class: 'card', 'aria-labelledby': id }, h('h2', { id }, title), ...content);
}

export function webhookSection(ctx: ViewContext, m: Merchant): HTMLElement {
  const error = errorBox();
  const result = h('div', { class: 'stack', role: 'status' });
  const whereText = (current: string | undefined): Child[] =>
    current ? ['Events go to ', h('code', {}, current), '.'] : ['No endpoint yet: events are kept but not sent.'];
  const where = h('p', {}, ...whereText(m.webhook?.url));
  const url = h('input', {
    id: 'webhook-url',
    name: 'url',
    type: 'url',
    value: m.webhook?.url ?? '',
    required: true,
    'aria-describedby': 'webhook-url-hint',
  });
  const rotate = h('input', { id: 'webhook-rotate', name: 'rotate', type: 'checkbox' });
  const form = h(
    'form',
    { novalidate: true },
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'webhook-url' }, 'Endpoint URL'),
      url,
      h(
        'p',
        { id: 'webhook-url-hint', class: 'hint' },
        'HTTPS on a public address; events are signed with the endpoint’s whsec_ secret (Standard Webhooks).',
      ),
    ),
    m.webhook
      ? h(
          'p',
          { class: 'check' },
          rotate,
          h('label', { for: 'webhook-rotate' }, 'Also make a new secret (the old one keeps working for a while)'),
        )
      : null,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit' }, m.webhook ? 'Save the endpoint' : 'Set the endpoint'),
      m.webhook
        ? h('button', { type: 'button', class: 'plain', onclick: () => void test() }, 'Send a test event')
        : null,
    ),
  );
  const showSecret = (secret: string) =>
    result.replaceChildren(
      h(
        'p',
        { class: 'warning' },
        'The endpoint’s signing secret, shown this once: keep it in your shop’s settings now.',
      ),
      h('p', {}, h('code', { id: 'webhook-secret' }, secret), ' ', copyButton(secret, 'the secret')),
    );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    showError(error, '');
    try {
      const saved = await call('put', '/cabinet/v1/merchants/{merchant_id}/webhook', {
        params: ctx.params,
        body: { url: url.value.trim(), ...(rotate.checked ? { rotate_secret: true } : {}) },
      });
      announce('The webhook endpoint is saved.');
      where.replaceChildren(...nodes(whereText(saved.url)));
      rotate.checked = false;
      if (saved.secret) showSecret(saved.secret);
      else result.replaceChildren();
    } catch (err) {
      showError(error, explain(err));
    }
  });
  async function test(): Promise<void> {
    showError(error, '');
    try {
      const r = await call('post', '/cabinet/v1/merchants/{merchant_id}/webhook/test', { params: ctx.params });
      const ok = r.status_code !== null && r.status_code >= 200 && r.status_code < 300;
      result.replaceChildren(
        h('p', { class: ok ? '' : 'warning' }, ok ? 'The test event was accepted.' : 'The test event was refused.'),
        fields([
          ['Event id', h('code', {}, r.event_id)],
          ['Answer', r.status_code ? `HTTP ${r.status_code}` : (r.error ?? '—')],
          ['Duration', `${r.duration_ms} ms`],
          ['Response excerpt', r.response_excerpt || '—'],
        ]),
      );
      announce(ok ? 'The test event was accepted.' : 'The test event was refused.');
    } catch (err) {
      showError(error, explain(err));
    }
  }
  if (!canChange(ctx.merchant)) return section('webhook-h', 'Webhook endpoint', where, viewerNote());
  return section('webhook-h', 'Webhook endpoint', where, form, error, result);
}

export async function payoutRulesSection(ctx: ViewContext, m: Merchant): Promise<HTMLElement> {
  const list = await get('/cabinet/v1/merchants/{merchant_id}/whitelist', ctx.params, { limit: 100 });
  const limit = (v: string | null) => (v === null ? 'none' : v);
  return section(
    'payout-rules-h',
    'Payout rules (set by the operator)',
    fields([
      ['Approved without review up to', limit(m.payout_limits.auto_approve)],
      ['Daily limit', limit(m.payout_limits.daily)],
    ]),
    h('h3', {}, 'Whitelist'),
    table(
      'Addresses payouts may go to, with the delay before first use',
      ['Asset', 'Address', numeric('Delay'), 'Usable from', 'Usable now'],
      list.data.map((e) => [
        assetName(e.asset),
        chainRef('address', e.address, { short: true }),
        e.delay,
        when(e.usable_from),
        e.usable ? 'yes' : 'not yet',
      ]),
      'no address yet: ask the operator to add one.',
    ),
  );
}

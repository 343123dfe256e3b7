// Settings (the merchant's switches, its assets, the network fee payer, the second factor), the API
// keys, and report downloads when the installation serves them.
import { call, explain, get, withQuery } from '../api';
import { announce, badge, errorBox, h, showError, table, time, type Child } from '../dom';
import type { Account, Merchant, ViewContext } from '../types';

function section(id: string, title: string, ...content: Child[]): HTMLElement {
  return h('section', { class: 'card', 'aria-labelledby': id }, h('h2', { id }, title), ...content);
}

function merchantSection(ctx: ViewContext, m: Merchant, redraw: () => Promise<void>): HTMLElement {
  const error = errorBox();
  // The button moves the owner's own switch; the operator's stop is the operator's to lift.
  const ownerOff = m.disabled_by.includes('owner');
  const operatorOff = m.disabled_by.includes('operator');
  const toggle = async () => {
    showError(error, '');
    try {
      await call('patch', '/cabinet/v1/merchants/{merchant_id}', { params: ctx.params, body: { enabled: ownerOff } });
      await ctx.reloadAccount();
      announce(
        !ownerOff
          ? 'The merchant is disabled: its API keys are refused.'
          : operatorOff
            ? 'Your switch is on again; the operator still keeps the merchant disabled.'
            : 'The merchant is enabled again.',
      );
      await redraw();
    } catch (e) {
      showError(error, explain(e));
    }
  };
  const payer = async () => {
    showError(error, '');
    try {
      await call('patch', '/cabinet/v1/merchants/{merchant_id}', {
        params: ctx.params,
        body: { network_fee_payer: 'merchant' },
      });
      announce('The merchant pays the network fee: invoices can be created again.');
      await redraw();
    } catch (e) {
      showError(error, explain(e));
    }
  };
  return section(
    'merchant-h',
    'Merchant',
    h(
      'dl',
      { class: 'fields' },
      h('dt', {}, 'API'),
      h(
        'dd',
        {},
        badge(m.enabled ? 'enabled' : 'disabled'),
        m.enabled ? '' : ` by ${m.disabled_by.join(' and ')} (every API key answers 403 merchant_disabled)`,
        operatorOff ? h('p', {}, 'The operator disabled the merchant: only the operator can lift that stop.') : null,
      ),
      h('dt', {}, 'Approval by the operator'),
      h('dd', {}, badge(m.approval)),
      h('dt', {}, 'Address mode'),
      h('dd', {}, m.address_mode === 'per_user' ? 'one permanent address per user' : 'a new address per invoice'),
      h('dt', {}, 'Confirmations'),
      h('dd', {}, String(m.settings.confirmations)),
      h('dt', {}, 'Site'),
      h('dd', {}, m.settings.site_url ?? '—'),
      h('dt', {}, 'Network fee'),
      h(
        'dd',
        {},
        m.settings.network_fee_payer === 'merchant'
          ? 'paid by the merchant (included in the service fee)'
          : 'legacy: the customer (invoices are refused)',
      ),
    ),
    error,
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        { type: 'button', class: ownerOff ? '' : 'danger', onclick: () => void toggle() },
        ownerOff
          ? 'Enable the merchant (your switch)'
          : operatorOff
            ? 'Also switch it off yourself'
            : 'Disable the merchant',
      ),
      m.settings.network_fee_payer === 'customer'
        ? h('button', { type: 'button', onclick: () => void payer() }, 'Let the merchant pay the network fee')
        : null,
    ),
  );
}

function assetsSection(ctx: ViewContext, m: Merchant): HTMLElement {
  const error = errorBox();
  const rows = m.assets.map((a) => {
    const id = `asset-${a.asset}`;
    const box = h('input', { type: 'checkbox', id, checked: a.payments });
    box.addEventListener('change', async () => {
      showError(error, '');
      try {
        const r = await call('put', '/cabinet/v1/merchants/{merchant_id}/assets/{asset}', {
          params: { ...ctx.params, asset: a.asset },
          body: { payments: box.checked },
        });
        announce(`${a.asset}: ${r.payments ? 'received' : 'refused for new invoices'}.`);
      } catch (e) {
        box.checked = !box.checked;
        showError(error, explain(e));
      }
    });
    return [
      h('span', { class: 'check' }, box, h('label', { for: id }, `Receive ${a.asset}`)),
      a.name,
      a.offered ? 'yes' : 'no (switched off by the operator)',
    ];
  });
  return section(
    'assets-h',
    'Assets',
    h('p', {}, 'An asset switched off here refuses new invoices with asset_disabled_by_merchant.'),
    error,
    table('Receiving per asset', ['Receive', 'Name', 'Offered by the operator'], rows, 'no asset.'),
  );
}

function totpSection(ctx: ViewContext, account: Account, redraw: () => Promise<void>): HTMLElement {
  const error = errorBox();
  const area = h('div', { class: 'stack' });
  const start = async () => {
    showError(error, '');
    try {
      const e = await call('post', '/cabinet/v1/account/totp');
      const code = h('input', {
        id: 'totp-code',
        name: 'code',
        inputmode: 'numeric',
        autocomplete: 'one-time-code',
        pattern: '[0-9]{6}',
        maxlength: 6,
        required: true,
      });
      const form = h(
        'form',
        {},
        h(
          'p',
          {},
          'Add this secret to your authenticator app (type it, or open the otpauth link on the phone), then enter the code it shows.',
        ),
        h(
          'dl',
          { class: 'fields' },
          h('dt', {}, 'Secret'),
          h('dd', {}, h('code', { id: 'totp-secret' }, e.secret)),
          h('dt', {}, 'Link'),
          h('dd', {}, h('code', { class: 'wrap' }, e.otpauth_uri)),
        ),
        h('div', { class: 'field' }, h('label', { for: 'totp-code' }, 'Code from the app'), code),
        h('button', { type: 'submit' }, 'Turn the second factor on'),
      );
      form.addEventListener('submit', async (ev) => {
        ev.preventDefault();
        showError(error, '');
        try {
          await call('post', '/cabinet/v1/account/totp/confirm', { body: { code: code.value.trim() } });
          await ctx.reloadAccount();
          announce('The second factor is on: sign-in now asks for a code.');
          await redraw();
        } catch (err) {
          showError(error, explain(err));
        }
      });
      area.replaceChildren(form);
      code.focus();
    } catch (err) {
      showError(error, explain(err));
    }
  };
  return section(
    'totp-h',
    'Second factor (your account)',
    h(
      'p',
      {},
      'Account ',
      h('strong', {}, account.email),
      ': ',
      account.totp ? 'the second factor (TOTP) is on.' : 'the second factor is off.',
    ),
    error,
    account.totp ? null : h('button', { type: 'button', onclick: () => void start() }, 'Set up a second factor'),
    area,
  );
}

export async function settingsView(ctx: ViewContext): Promise<void> {
  const redraw = async () => {
    const m = await get('/cabinet/v1/merchants/{merchant_id}', ctx.params);
    const account = await get('/cabinet/v1/account');
    ctx.show('Settings', merchantSection(ctx, m, redraw), assetsSection(ctx, m), totpSection(ctx, account, redraw));
  };
  await redraw();
}

export async function keysView(ctx: ViewContext): Promise<void> {
  const page = await get('/cabinet/v1/merchants/{merchant_id}/keys', ctx.params, {
    cursor: ctx.query.cursor,
    limit: 50,
  });
  ctx.show(
    'API keys',
    h('p', {}, 'The operator issues and revokes keys; a secret is shown once, at issue, and never here.'),
    table(
      'API keys, newest first',
      ['Key id', 'Label', 'Status', 'Created', 'Expires', 'Revoked', 'Last used'],
      page.data.map((k) => [
        h('code', {}, k.key_id),
        k.label ?? '—',
        badge(k.status),
        time(k.created_at),
        k.expires_at ? time(k.expires_at) : 'never',
        time(k.revoked_at),
        time(k.last_used_at),
      ]),
      'no key yet.',
    ),
  );
}

export async function reportsView(ctx: ViewContext): Promise<void> {
  const kind = h(
    'select',
    { id: 'r-kind', name: 'kind' },
    ...['invoices', 'payouts', 'deposits', 'ledger'].map((k) => h('option', { value: k }, k)),
  );
  const from = h('input', { id: 'r-from', name: 'from', type: 'date', required: true });
  const to = h('input', { id: 'r-to', name: 'to', type: 'date', required: true });
  const format = h(
    'select',
    { id: 'r-format', name: 'format' },
    h('option', { value: 'csv' }, 'CSV'),
    h('option', { value: 'json' }, 'JSON'),
  );
  const error = errorBox();
  const form = h(
    'form',
    { class: 'filters' },
    h('div', { class: 'field' }, h('label', { for: 'r-kind' }, 'Report'), kind),
    h('div', { class: 'field' }, h('label', { for: 'r-from' }, 'From (UTC day)'), from),
    h('div', { class: 'field' }, h('label', { for: 'r-to' }, 'To (UTC day, excluded)'), to),
    h('div', { class: 'field' }, h('label', { for: 'r-format' }, 'Format'), format),
    h('button', { type: 'submit' }, 'Download'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (!from.value || !to.value) return showError(error, 'Choose both days.');
    showError(error, '');
    const href = withQuery(`/cabinet/v1/merchants/${ctx.merchantId}/reports/${kind.value}`, {
      from: `${from.value}T00:00:00Z`,
      to: `${to.value}T00:00:00Z`,
      format: format.value,
    });
    const a = h('a', { href, download: `${kind.value}-${from.value}-${to.value}.${format.value}` });
    document.body.append(a);
    a.click();
    a.remove();
  });
  ctx.show(
    'Reports',
    h('p', {}, 'Every record of the period [from, to), one row each, for this merchant.'),
    form,
    error,
  );
}

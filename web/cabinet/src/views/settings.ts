// The merchant's settings (its switches, its assets, the network fee payer, webhook and payout
// rules) and the API keys. The owner's own account is apart, under "Account".
import { csvLink } from './csv';
import { call, explain, get } from '../api';
import { announce, badge, errorBox, h, showError, table, type Child } from '../../../shared/dom';
import { assetName, when } from '../../../shared/format';
import type { Merchant, ViewContext } from '../types';
import { canChange, viewerNote } from '../roles';
import { payoutRulesSection, webhookSection } from './payout-settings';

function section(id: string, title: string, ...content: Child[]): HTMLElement {
  return h('section', { class: 'card', 'aria-labelledby': id }, h('h2', { id }, title), ...content);
}

function merchantSection(ctx: ViewContext, m: Merchant, redraw: () => Promise<void>): HTMLElement {
  const error = errorBox();
  // The button moves the owner's own switch; the operator's stop is the operator's to lift.
  const ownerOff = m.disabled_by.includes('owner');
  const operatorOff = m.disabled_by.includes('operator');
  const confirmArea = h('div', { class: 'confirm' });
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
        m.enabled ? '' : ` by ${m.disabled_by.join(' and ')}: your shop's API keys are refused`,
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
    canChange(ctx.merchant) ? actions() : viewerNote(),
    confirmArea,
  );
  function actions(): HTMLElement {
    return h(
      'div',
      { class: 'actions' },
      h(
        'button',
        {
          type: 'button',
          class: ownerOff ? '' : 'danger',
          // Switching on is harmless; switching off stops every API key at once: confirmed first.
          onclick: () => (ownerOff ? void toggle() : askToDisable()),
        },
        ownerOff
          ? 'Enable the merchant (your switch)'
          : operatorOff
            ? 'Also switch it off yourself'
            : 'Disable the merchant',
      ),
      m.settings.network_fee_payer === 'customer'
        ? h('button', { type: 'button', onclick: () => void payer() }, 'Let the merchant pay the network fee')
        : null,
    );
  }
  function askToDisable(): void {
    const input = h('input', { id: 'confirm-name', name: 'confirm-name', autocomplete: 'off', required: true });
    const hint = h('p', { class: 'error', role: 'alert', hidden: true });
    const form = h(
      'form',
      { class: 'card danger-zone', 'aria-labelledby': 'confirm-h' },
      h('h3', { id: 'confirm-h' }, 'Disable the merchant?'),
      h(
        'p',
        {},
        'Every API key of ',
        h('strong', {}, m.name),
        ' is refused from the next request: your shop stops taking payments and payouts.',
      ),
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'confirm-name' }, `Type the merchant's name (${m.name}) to confirm`),
        input,
      ),
      hint,
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'submit', class: 'danger' }, 'Disable it now'),
        h(
          'button',
          { type: 'button', class: 'plain', onclick: () => confirmArea.replaceChildren() },
          'Keep it enabled',
        ),
      ),
    );
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      if (input.value.trim() !== m.name) return showError(hint, `That is not the merchant's name; type ${m.name}.`);
      void toggle();
    });
    confirmArea.replaceChildren(form);
    input.focus();
  }
}

function assetsSection(ctx: ViewContext, m: Merchant): HTMLElement {
  const error = errorBox();
  const confirm = h('div', {});
  const rows = m.assets.map((a) => {
    const id = `asset-${a.asset}`;
    const box = h('input', { type: 'checkbox', id, checked: a.payments });
    const apply = async () => {
      showError(error, '');
      try {
        const r = await call('put', '/cabinet/v1/merchants/{merchant_id}/assets/{asset}', {
          params: { ...ctx.params, asset: a.asset },
          body: { payments: box.checked },
        });
        announce(`${assetName(a.asset)}: ${r.payments ? 'received' : 'refused for new invoices'}.`);
      } catch (e) {
        box.checked = !box.checked;
        showError(error, explain(e));
      }
    };
    box.addEventListener('change', () => {
      if (box.checked) return void apply();
      // Switching off refuses new invoices in the asset: said and confirmed first.
      box.checked = true;
      const yes = h('button', { type: 'button', class: 'danger' }, `Stop receiving ${a.asset}`);
      const no = h('button', { type: 'button', class: 'plain' }, 'Keep receiving');
      yes.addEventListener('click', () => {
        box.checked = false;
        confirm.replaceChildren();
        void apply();
      });
      no.addEventListener('click', () => {
        confirm.replaceChildren();
        box.focus();
      });
      confirm.replaceChildren(
        h(
          'div',
          { class: 'card danger-zone', role: 'group', 'aria-label': `Switch ${a.asset} off?` },
          h('p', {}, `New invoices in ${assetName(a.asset)} will be refused until you switch it on again.`),
          h('div', { class: 'actions' }, yes, no),
        ),
      );
      yes.focus();
    });
    return [
      canChange(ctx.merchant)
        ? h('span', { class: 'check' }, box, h('label', { for: id }, `Receive ${a.asset}`))
        : a.payments
          ? 'received'
          : 'switched off',
      assetName(a.asset),
      a.offered ? 'yes' : 'no (switched off by the operator)',
    ];
  });
  return section(
    'assets-h',
    'Assets',
    h('p', {}, 'An asset switched off here refuses new invoices; invoices already open still complete.'),
    error,
    confirm,
    table('Receiving per asset', ['Receive', 'Name', 'Offered by the operator'], rows, 'no asset.'),
  );
}

export async function settingsView(ctx: ViewContext): Promise<void> {
  const redraw = async () => {
    const m = await get('/cabinet/v1/merchants/{merchant_id}', ctx.params);
    const rules = await payoutRulesSection(ctx, m);
    ctx.show(
      'Settings',
      merchantSection(ctx, m, () => redraw()),
      assetsSection(ctx, m),
      webhookSection(ctx, m),
      rules,
      h(
        'p',
        { class: 'hint' },
        'Your password, second factor and sessions are under ',
        h('a', { href: '#/account' }, 'Account'),
        '.',
      ),
    );
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
        when(k.created_at),
        when(k.expires_at, 'never'),
        when(k.revoked_at),
        when(k.last_used_at, 'never'),
      ]),
      'no key yet.',
    ),
    csvLink(ctx.merchantId, 'keys', {}),
  );
}

// The merchant's team: its owners see who holds it, invite viewers (reads, reports and exports
// only) and remove them, each removal asked first. A viewer has no such page: who else holds the
// merchant is the owners' business.
import { call, explain, get } from '../api';
import { announce, errorBox, h, showError, table } from '../../../shared/dom';
import { copyButton, when } from '../../../shared/format';
import { canChange, viewerNote } from '../roles';
import type { ViewContext } from '../types';

type Member = Awaited<ReturnType<typeof readMembers>>['data'][number];

const readMembers = (ctx: ViewContext) => get('/cabinet/v1/merchants/{merchant_id}/members', ctx.params);

const ROLE_WORDS: Record<string, string> = {
  owner: 'owner: everything',
  viewer: 'viewer: reads, reports and exports',
};
const STATUS_WORDS: Record<string, string> = {
  setup_pending: 'invited, no password chosen yet',
  active: 'active',
  disabled: 'disabled by the operator',
};

function inviteForm(ctx: ViewContext, done: () => Promise<void>): HTMLElement {
  const error = errorBox();
  const result = h('div', { role: 'status' });
  const email = h('input', { id: 'invite-email', name: 'email', type: 'email', autocomplete: 'off', required: true });
  const button = h('button', { type: 'submit' }, 'Invite');
  const form = h(
    'form',
    { class: 'stack narrow', 'aria-labelledby': 'invite-h', novalidate: true },
    h('h2', { id: 'invite-h' }, 'Invite a viewer'),
    h(
      'p',
      { class: 'hint' },
      'A viewer sees this merchant’s invoices, payouts, reports and exports, and changes nothing.',
    ),
    h('div', { class: 'field' }, h('label', { for: 'invite-email' }, 'Email'), email),
    error,
    h('p', { class: 'actions' }, button),
    result,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    showError(error, '');
    result.replaceChildren();
    const address = email.value.trim();
    if (!/^[^\s@]+@[^\s@]+$/.test(address)) return showError(error, 'Write the person’s email address.');
    button.disabled = true;
    call('post', '/cabinet/v1/merchants/{merchant_id}/members', {
      params: ctx.params,
      body: { email: address, role: 'viewer' },
    })
      .then(async (made) => {
        form.reset();
        result.replaceChildren(
          ...(made.setup_url
            ? [
                h(
                  'p',
                  { class: 'summary' },
                  `${made.email} is invited. Send them this link; it works once, for 24 hours, and it is shown only now:`,
                ),
                h(
                  'p',
                  {},
                  h('code', { class: 'claim' }, made.setup_url),
                  ' ',
                  copyButton(made.setup_url, 'the setup link'),
                ),
              ]
            : [h('p', { class: 'summary' }, `${made.email} already has an account and sees this merchant now.`)]),
        );
        announce(`${made.email} is a viewer now.`);
        await done();
      })
      .catch((err: unknown) => showError(error, explain(err)))
      .finally(() => {
        button.disabled = false;
      });
  });
  return form;
}

/** The Remove button of one member; pressing it asks first, naming who and what they lose. */
function removeControl(
  ctx: ViewContext,
  m: Member,
  self: boolean,
  done: () => Promise<void>,
  error: HTMLElement,
): HTMLElement {
  const slot = h('div', { class: 'remove' });
  const label = self ? 'Leave' : 'Remove';
  const start = h(
    'button',
    { type: 'button', class: 'small secondary-plain', 'aria-label': `${label} ${m.email}` },
    label,
  );
  start.addEventListener('click', () => {
    const yes = h(
      'button',
      { type: 'button', class: 'small danger' },
      self ? 'Leave the merchant' : `Remove ${m.email}`,
    );
    const no = h('button', { type: 'button', class: 'small secondary-plain' }, 'Keep');
    const panel = h(
      'div',
      { class: 'confirm', role: 'alertdialog', 'aria-label': `${label} ${m.email}?` },
      h(
        'p',
        {},
        self
          ? `Leave ${ctx.merchant.name}? This account stops seeing it at once.`
          : `Remove ${m.email} from ${ctx.merchant.name}? They stop seeing it at once.`,
      ),
      h('p', { class: 'actions' }, yes, no),
    );
    no.addEventListener('click', () => {
      slot.replaceChildren(start);
      start.focus();
    });
    yes.addEventListener('click', () => {
      yes.disabled = true;
      showError(error, '');
      call('delete', '/cabinet/v1/merchants/{merchant_id}/members/{account_id}', {
        params: { ...ctx.params, account_id: m.account_id },
      }).then(
        async () => {
          announce(self ? `You left ${ctx.merchant.name}.` : `${m.email} is removed.`);
          if (self) {
            await ctx.reloadAccount();
            location.hash = '#/';
          } else await done();
        },
        (err: unknown) => {
          slot.replaceChildren(start);
          showError(error, explain(err));
        },
      );
    });
    slot.replaceChildren(panel);
    yes.focus();
  });
  slot.append(start);
  return slot;
}

export async function membersView(ctx: ViewContext): Promise<void> {
  if (!canChange(ctx.merchant)) {
    ctx.show('Team', viewerNote());
    return;
  }
  const listSlot = h('div', {});
  const error = errorBox();
  const draw = async () => {
    const page = await readMembers(ctx);
    const owners = page.data.filter((m) => m.role === 'owner').length;
    listSlot.replaceChildren(
      table(
        'People who hold this merchant',
        ['Email', 'Role', 'Status', 'Since', 'Action'],
        page.data.map((m) => {
          const self = m.email === ctx.account.email;
          // The last owner never leaves; another owner is the operator's to remove.
          const removable = m.role === 'viewer' || (self && owners > 1);
          return [
            m.email,
            ROLE_WORDS[m.role] ?? m.role,
            STATUS_WORDS[m.status] ?? m.status,
            when(m.granted_at),
            removable
              ? removeControl(ctx, m, self, draw, error)
              : h('span', { class: 'hint' }, self ? 'you' : 'the operator’s to change'),
          ];
        }),
        'nobody yet.',
      ),
    );
  };
  await draw();
  ctx.show(
    'Team',
    h('p', {}, 'Who can see ', h('strong', {}, ctx.merchant.name), '. Owners are added by the operator.'),
    error,
    listSlot,
    inviteForm(ctx, draw),
  );
}

// The owner's own account: the second factor, the password and the sessions, apart from any
// merchant's settings.
import { ApiError, call, explain, get } from '../api';
import { announce, errorBox, h, showError, table, type Child } from '../../../shared/dom';
import { when } from '../../../shared/format';
import type { AccountContext } from '../types';
import { totpSection } from './second-factor';

function section(id: string, title: string, ...content: Child[]): HTMLElement {
  return h('section', { class: 'card', 'aria-labelledby': id }, h('h2', { id }, title), ...content);
}

export function passwordSection(): HTMLElement {
  const error = errorBox();
  const input = (id: string, label: string, autocomplete: string, hint?: string) =>
    h(
      'div',
      { class: 'field' },
      h('label', { for: id }, label),
      h('input', {
        id,
        name: id,
        type: 'password',
        autocomplete,
        required: true,
        'aria-describedby': hint ? `${id}-hint` : undefined,
      }),
      hint ? h('p', { id: `${id}-hint`, class: 'hint' }, hint) : null,
    );
  const form = h(
    'form',
    { class: 'narrow', novalidate: true },
    input('current-password', 'Current password', 'current-password'),
    input('changed-password', 'New password', 'new-password', 'At least 12 characters.'),
    input('changed-repeat', 'Repeat the new password', 'new-password'),
    error,
    h('button', { type: 'submit' }, 'Change the password'),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const data = new FormData(form);
    const next = String(data.get('changed-password') ?? '');
    if (next !== String(data.get('changed-repeat') ?? '')) return showError(error, 'The two new passwords differ.');
    showError(error, '');
    try {
      await call('post', '/cabinet/v1/account/password', {
        body: { current_password: String(data.get('current-password') ?? ''), new_password: next },
        quiet: true,
      });
      form.reset();
      announce('The password is changed; your other sessions have ended.');
    } catch (err) {
      showError(
        error,
        err instanceof ApiError && err.status === 401 ? 'The current password is not right.' : explain(err),
      );
    }
  });
  return section('password-h', 'Password', form);
}

export async function sessionsSection(): Promise<HTMLElement> {
  const box = h('div', {});
  const error = errorBox();
  const load = async () => {
    const list = await get('/cabinet/v1/account/sessions');
    box.replaceChildren(
      table(
        'Where this account is signed in',
        ['Started', 'Last used', 'Address', 'Kind', 'End'],
        list.data.map((s) => [
          when(s.created_at),
          when(s.last_used_at),
          s.address ?? 'unknown',
          s.transport === 'cookie' ? 'web page' : 'API token',
          s.current
            ? h('strong', {}, 'this session')
            : h(
                'button',
                {
                  type: 'button',
                  class: 'small plain',
                  'aria-label': `End this session (started ${s.created_at.slice(0, 16).replace('T', ' ')} UTC)`,
                  onclick: () => void end(s.session_id),
                },
                'End this session',
              ),
        ]),
        'none.',
      ),
    );
  };
  const end = async (id: string) => {
    showError(error, '');
    try {
      await call('delete', '/cabinet/v1/account/sessions/{session_id}', { params: { session_id: id } });
      announce('The session has ended.');
      await load();
    } catch (err) {
      showError(error, explain(err));
    }
  };
  await load();
  return section('sessions-h', 'Sessions', error, box);
}

/** "Account": the owner's own settings (second factor, password, sessions), apart from any merchant's. */
export async function accountView(ctx: AccountContext): Promise<void> {
  const redraw = async (recoveryCodes?: string[]) => {
    const [account, sessions] = await Promise.all([get('/cabinet/v1/account'), sessionsSection()]);
    ctx.show(
      'Account',
      h('p', { class: 'summary' }, 'Signed in as ', h('strong', {}, account.email), '.'),
      totpSection(ctx, account, redraw, recoveryCodes),
      passwordSection(),
      sessions,
    );
  };
  await redraw();
}

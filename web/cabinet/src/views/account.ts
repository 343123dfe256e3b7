// The owner's own account: the second factor (a QR code drawn here, never fetched), and what
// comes with it.
import QRCode from 'qrcode';
import { ApiError, call, explain, get, type Answer } from '../api';
import { announce, errorBox, h, showError, table, type Child } from '../../../shared/dom';
import { copyButton, when } from '../../../shared/format';
import type { Account, AccountContext } from '../types';

function section(id: string, title: string, ...content: Child[]): HTMLElement {
  return h('section', { class: 'card', 'aria-labelledby': id }, h('h2', { id }, title), ...content);
}

/** The otpauth link as a QR code on a canvas (no image request, nothing from another host). */
function qrCode(uri: string): HTMLCanvasElement {
  const canvas = h('canvas', {
    class: 'qr',
    role: 'img',
    'aria-label': 'QR code of the authenticator link (the secret below is the same)',
  });
  void QRCode.toCanvas(canvas, uri, { margin: 2, width: 200, color: { dark: '#000000', light: '#ffffff' } });
  return canvas;
}

export function totpSection(
  ctx: AccountContext,
  account: Account,
  redraw: (recoveryCodes?: string[]) => Promise<void>,
  recoveryCodes?: string[],
): HTMLElement {
  const error = errorBox();
  const area = h('div', { class: 'stack' });
  // One enrolment at a time: a second start would issue a new secret and void the scanned one.
  const button = h('button', { type: 'button', id: 'totp-start' }, 'Set up a second factor');
  const start = async () => {
    showError(error, '');
    button.disabled = true;
    button.textContent = 'Setting up…';
    try {
      const e = await call('post', '/cabinet/v1/account/totp');
      button.textContent = 'Setup under way: finish it below';
      area.replaceChildren(enrolForm(e, error, ctx, redraw));
      area.querySelector('input')?.focus();
    } catch (err) {
      button.disabled = false;
      button.textContent = 'Set up a second factor';
      showError(error, explain(err));
    }
  };
  button.addEventListener('click', () => void start());
  return section(
    'totp-h',
    'Second factor',
    h('p', {}, account.totp ? 'The second factor (TOTP) is on.' : 'The second factor is off.'),
    error,
    account.totp || recoveryCodes?.length ? null : button,
    recoveryCodes?.length ? recoveryList(recoveryCodes, () => void redraw(), account.email) : null,
    area,
  );
}

type Enrolment = Answer<'post', '/cabinet/v1/account/totp'>;

function enrolForm(
  e: Enrolment,
  error: HTMLElement,
  ctx: AccountContext,
  redraw: (recoveryCodes?: string[]) => Promise<void>,
): HTMLFormElement {
  const code = h('input', {
    id: 'totp-code',
    name: 'code',
    inputmode: 'numeric',
    autocomplete: 'one-time-code',
    pattern: '[0-9]{6}',
    maxlength: 6,
    required: true,
  });
  const submit = h('button', { type: 'submit' }, 'Turn the second factor on');
  const form = h(
    'form',
    {},
    h('p', {}, 'Scan the QR code with your authenticator app (or type the secret), then enter the code it shows.'),
    qrCode(e.otpauth_uri),
    h(
      'dl',
      { class: 'fields' },
      h('dt', {}, 'Secret'),
      h('dd', {}, h('code', { id: 'totp-secret' }, e.secret), ' ', copyButton(e.secret, 'the secret')),
      h('dt', {}, 'Link'),
      h('dd', {}, h('code', { class: 'wrap' }, e.otpauth_uri)),
    ),
    h('div', { class: 'field' }, h('label', { for: 'totp-code' }, 'Code from the app'), code),
    submit,
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    showError(error, '');
    submit.disabled = true;
    try {
      const on = await call('post', '/cabinet/v1/account/totp/confirm', { body: { code: code.value.trim() } });
      await ctx.reloadAccount();
      announce('The second factor is on: sign-in now asks for a code. Save the recovery codes shown below.');
      await redraw(on.recovery_codes);
    } catch (err) {
      submit.disabled = false;
      showError(error, explain(err));
    }
  });
  return form;
}

const RECOVERY_HEADER = 'paygate cabinet: recovery codes. Each signs in once when the authenticator is lost.';

/** The codes as a text file the browser saves (made here, nothing is sent anywhere). */
function downloadLink(codes: string[], email: string): HTMLAnchorElement {
  const text = `${RECOVERY_HEADER}\nAccount: ${email}\n\n${codes.join('\n')}\n`;
  const href = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
  return h('a', { class: 'button', href, download: 'paygate-recovery-codes.txt' }, 'Download (.txt)');
}

/**
 * The recovery codes, shown once: each signs in once instead of a code. They stay until the owner
 * says they are saved (downloaded, printed or copied), and leaving the page asks first.
 */
export function recoveryList(codes: string[], done: () => void, email = ''): HTMLElement {
  // Leaving the page asks first while the codes are on screen (not once the page has moved on).
  const leaving = (e: BeforeUnloadEvent) => {
    if (box.isConnected) e.preventDefault();
    else window.removeEventListener('beforeunload', leaving);
  };
  window.addEventListener('beforeunload', leaving);
  const saved = h('input', { type: 'checkbox', id: 'codes-saved' });
  const hide = h('button', { type: 'button', disabled: true }, 'Hide the codes');
  saved.addEventListener('change', () => (hide.disabled = !saved.checked));
  hide.addEventListener('click', () => {
    window.removeEventListener('beforeunload', leaving);
    announce('The recovery codes are hidden; they cannot be shown again.');
    done();
  });
  const box = h(
    'div',
    { class: 'stack recovery-codes', id: 'recovery-codes' },
    h(
      'p',
      { class: 'warning' },
      'Your recovery codes, shown this once: each signs you in once if the authenticator is lost. Save them now.',
    ),
    h('ul', { class: 'codes', 'aria-label': 'Recovery codes' }, ...codes.map((c) => h('li', {}, h('code', {}, c)))),
    h(
      'div',
      { class: 'actions no-print' },
      downloadLink(codes, email),
      h('button', { type: 'button', class: 'plain', onclick: () => window.print() }, 'Print'),
      copyButton(codes.join('\n'), 'the recovery codes'),
    ),
    h(
      'div',
      { class: 'actions no-print' },
      h('span', { class: 'check' }, saved, h('label', { for: 'codes-saved' }, 'I saved them')),
      hide,
    ),
  );
  return box;
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

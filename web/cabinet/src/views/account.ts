// The owner's own account: the second factor (a QR code drawn here, never fetched), and what
// comes with it.
import QRCode from 'qrcode';
import { ApiError, call, explain, get } from '../api';
import { announce, errorBox, h, showError, table, type Child } from '../../../shared/dom';
import { copyButton, when } from '../../../shared/format';
import type { Account, ViewContext } from '../types';

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
  ctx: ViewContext,
  account: Account,
  redraw: (recoveryCodes?: string[]) => Promise<void>,
  recoveryCodes?: string[],
): HTMLElement {
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
        h('button', { type: 'submit' }, 'Turn the second factor on'),
      );
      form.addEventListener('submit', async (ev) => {
        ev.preventDefault();
        showError(error, '');
        try {
          const on = await call('post', '/cabinet/v1/account/totp/confirm', { body: { code: code.value.trim() } });
          await ctx.reloadAccount();
          announce('The second factor is on: sign-in now asks for a code. Keep the recovery codes shown below.');
          await redraw(on.recovery_codes);
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
    recoveryCodes?.length ? recoveryList(recoveryCodes) : null,
    area,
  );
}

/** The recovery codes, shown once at enrolment: each signs in once instead of a code. */
function recoveryList(codes: string[]): HTMLElement {
  return h(
    'div',
    { class: 'stack', id: 'recovery-codes' },
    h(
      'p',
      { class: 'warning' },
      'Your recovery codes, shown this once: each signs you in once if the authenticator is lost. Keep them somewhere safe now.',
    ),
    h('ul', { class: 'codes', 'aria-label': 'Recovery codes' }, ...codes.map((c) => h('li', {}, h('code', {}, c)))),
    copyButton(codes.join('\n'), 'the recovery codes'),
  );
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

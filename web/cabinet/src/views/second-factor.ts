// The owner's second factor: turning it on (a QR code drawn here, never fetched), turning it off,
// and new recovery codes. Each change asks for the current password first: a session alone (a
// borrowed laptop, a leaked cookie) must not change how the account signs in.
import QRCode from 'qrcode';
import { ApiError, call, explain, type Answer } from '../api';
import { announce, errorBox, h, showError } from '../../../shared/dom';
import { copyButton } from '../../../shared/format';
import type { Account, AccountContext } from '../types';
import { recoveryList } from './recovery-codes';

type Redraw = (recoveryCodes?: string[]) => Promise<void>;
type Enrolment = Answer<'post', '/cabinet/v1/account/totp'>;

/** Words for a refusal; `wrongCode` is what a code that does not match is called here. */
function refusal(err: unknown, wrongCode: string): string {
  if (err instanceof ApiError && err.code === 'second_factor_locked') {
    const minutes = Math.ceil(Number(err.retryAfter ?? 900) / 60);
    return `Too many wrong codes: the second factor is locked; try again in ${minutes} minutes.`;
  }
  if (err instanceof ApiError && err.code === 'validation_failed' && err.details.some((d) => d.path === 'body.code'))
    return wrongCode;
  return explain(err);
}

function passwordInput(id: string): HTMLInputElement {
  return h('input', { id, name: id, type: 'password', autocomplete: 'current-password', required: true });
}

function field(input: HTMLInputElement, label: string, hint?: string): HTMLElement {
  const hintId = hint ? `${input.id}-hint` : undefined;
  if (hintId) input.setAttribute('aria-describedby', hintId);
  return h(
    'div',
    { class: 'field' },
    h('label', { for: input.id }, label),
    input,
    hint ? h('p', { id: hintId, class: 'hint' }, hint) : null,
  );
}

/** The password is asked for before anything is sent; an empty one is said here, in words. */
function passwordGiven(input: HTMLInputElement, error: HTMLElement): boolean {
  if (input.value !== '') return true;
  showError(error, 'Enter your current password.');
  input.focus();
  return false;
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

/**
 * The first step: the current password and "Set up a second factor". One enrolment at a time: a
 * second start would issue a new secret and void the scanned one, so the button stays off while one
 * is open.
 */
function startForm(ctx: AccountContext, error: HTMLElement, area: HTMLElement, redraw: Redraw): HTMLFormElement {
  const password = passwordInput('totp-password');
  const button = h('button', { type: 'submit', id: 'totp-start' }, 'Set up a second factor');
  const form = h('form', { class: 'narrow', novalidate: true }, field(password, 'Current password'), button);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    showError(error, '');
    if (!passwordGiven(password, error)) return;
    button.disabled = true;
    button.textContent = 'Setting up…';
    try {
      const e = await call('post', '/cabinet/v1/account/totp', { body: { current_password: password.value } });
      password.value = '';
      password.disabled = true;
      button.textContent = 'Setup under way: finish it below';
      area.replaceChildren(enrolForm(e, error, ctx, redraw));
      area.querySelector('input')?.focus();
    } catch (err) {
      button.disabled = false;
      button.textContent = 'Set up a second factor';
      showError(error, refusal(err, explain(err)));
      password.focus();
    }
  });
  return form;
}

function enrolForm(e: Enrolment, error: HTMLElement, ctx: AccountContext, redraw: Redraw): HTMLFormElement {
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
    field(code, 'Code from the app'),
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
      showError(error, refusal(err, 'That code is not right: enter the code the app shows now.'));
    }
  });
  return form;
}

/** A small form of the "on" state, with its own error and a way back. */
function changeForm(label: string, close: () => void, ...content: HTMLElement[]): HTMLFormElement {
  return h(
    'form',
    { class: 'narrow factor-change', novalidate: true, 'aria-label': label },
    ...content,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit' }, label),
      h('button', { type: 'button', class: 'plain', onclick: close }, 'Cancel'),
    ),
  );
}

/** Off with the password and a code: the recovery codes go, and every other session ends. */
function disableForm(ctx: AccountContext, close: () => void, redraw: Redraw): HTMLFormElement {
  const error = errorBox();
  const password = passwordInput('totp-off-password');
  const code = h('input', {
    id: 'totp-off-code',
    name: 'code',
    autocomplete: 'one-time-code',
    autocapitalize: 'off',
    spellcheck: 'false',
    maxlength: 64,
    required: true,
  });
  const form = changeForm(
    'Turn the second factor off',
    close,
    field(password, 'Current password'),
    field(code, 'Code', 'The code the app shows now, or one of your unused recovery codes.'),
    error,
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    showError(error, '');
    if (!passwordGiven(password, error)) return;
    if (code.value.trim() === '') return showError(error, 'Enter the code the app shows, or a recovery code.');
    try {
      await call('post', '/cabinet/v1/account/totp/disable', {
        body: { current_password: password.value, code: code.value.trim() },
      });
      await ctx.reloadAccount();
      announce('The second factor is off: sign-in asks only for the password, and your other sessions have ended.');
      await redraw();
    } catch (err) {
      showError(
        error,
        refusal(err, 'That code is not right: enter the code the app shows now, or an unused recovery code.'),
      );
    }
  });
  return form;
}

/** Ten new recovery codes after the password; the old ones stop working at once. */
function renewForm(close: () => void, redraw: Redraw): HTMLFormElement {
  const error = errorBox();
  const password = passwordInput('codes-password');
  const form = changeForm(
    'Make new recovery codes',
    close,
    h('p', { class: 'hint' }, 'The recovery codes you have now stop working as soon as the new ones are made.'),
    field(password, 'Current password'),
    error,
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    showError(error, '');
    if (!passwordGiven(password, error)) return;
    try {
      const made = await call('post', '/cabinet/v1/account/recovery-codes', {
        body: { current_password: password.value },
      });
      announce('New recovery codes are made; the old ones no longer work. Save these now.');
      await redraw(made.recovery_codes);
    } catch (err) {
      showError(error, explain(err));
    }
  });
  return form;
}

/** With the factor on: "Turn off the second factor" and "New recovery codes", each opening its form. */
function onControls(ctx: AccountContext, area: HTMLElement, redraw: Redraw): HTMLElement {
  const close = () => area.replaceChildren();
  const open = (form: HTMLFormElement) => {
    area.replaceChildren(form);
    form.querySelector('input')?.focus();
  };
  return h(
    'div',
    { class: 'actions' },
    h(
      'button',
      { type: 'button', class: 'plain', id: 'totp-off', onclick: () => open(disableForm(ctx, close, redraw)) },
      'Turn off the second factor',
    ),
    h(
      'button',
      { type: 'button', class: 'plain', id: 'codes-renew', onclick: () => open(renewForm(close, redraw)) },
      'New recovery codes',
    ),
  );
}

export function totpSection(
  ctx: AccountContext,
  account: Account,
  redraw: Redraw,
  recoveryCodes?: string[],
): HTMLElement {
  const error = errorBox();
  const area = h('div', { class: 'stack' });
  const showingCodes = Boolean(recoveryCodes?.length);
  const controls = account.totp ? onControls(ctx, area, redraw) : startForm(ctx, error, area, redraw);
  return h(
    'section',
    { class: 'card', 'aria-labelledby': 'totp-h' },
    h('h2', { id: 'totp-h' }, 'Second factor'),
    h('p', {}, account.totp ? 'The second factor (TOTP) is on.' : 'The second factor is off.'),
    error,
    showingCodes ? recoveryList(recoveryCodes as string[], () => void redraw(), account.email) : controls,
    area,
  );
}

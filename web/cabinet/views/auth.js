// Sign-in (with the second factor) and the one-time setup link.
import { call, explain } from '../api.js';
import { errorBox, h, showError } from '../dom.js';

function field(id, label, attrs, hint) {
  const hintId = hint ? `${id}-hint` : undefined;
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    h('input', { id, name: id, 'aria-describedby': hintId, ...attrs }),
    hint ? h('p', { id: hintId, class: 'hint' }, hint) : null,
  );
}

export function signInView({ show, done }) {
  const error = errorBox();
  const form = h(
    'form',
    { class: 'card narrow', novalidate: false },
    field('email', 'Email', { type: 'email', autocomplete: 'username', required: true }),
    field('password', 'Password', { type: 'password', autocomplete: 'current-password', required: true }),
    field(
      'totp',
      'Authentication code',
      { type: 'text', inputmode: 'numeric', autocomplete: 'one-time-code', pattern: '[0-9]{6}', maxlength: 6 },
      'The 6-digit code of your authenticator app, if you turned the second factor on.',
    ),
    error,
    h('button', { type: 'submit' }, 'Sign in'),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    showError(error, '');
    const data = new FormData(form);
    const body = { email: String(data.get('email')), password: String(data.get('password')) };
    const totp = String(data.get('totp') ?? '').trim();
    if (totp) body.totp = totp;
    try {
      await call('POST', '/sessions?transport=cookie', body, { quiet: true });
      await done();
    } catch (err) {
      showError(
        error,
        err.status === 401
          ? 'Sign-in failed: check the email, the password and, if the second factor is on, the code.'
          : explain(err),
      );
    }
  });
  show('Sign in', h('p', {}, "The merchant owner's cabinet: your merchants' payments, payouts and settings."), form);
}

export function setupView({ show, token, done }) {
  const error = errorBox();
  const form = h(
    'form',
    { class: 'card narrow' },
    field(
      'new-password',
      'New password',
      { type: 'password', autocomplete: 'new-password', required: true, minlength: 12, maxlength: 200 },
      'At least 12 characters.',
    ),
    field('repeat-password', 'Repeat the password', {
      type: 'password',
      autocomplete: 'new-password',
      required: true,
    }),
    error,
    h('button', { type: 'submit' }, 'Set the password'),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const data = new FormData(form);
    const password = String(data.get('new-password'));
    if (password !== String(data.get('repeat-password'))) return showError(error, 'The two passwords differ.');
    showError(error, '');
    try {
      const account = await call('POST', '/account/setup', { setup_token: token, password }, { quiet: true });
      // The link is spent: it leaves the address bar, and the owner is signed in.
      history.replaceState(null, '', '/#/');
      await call('POST', '/sessions?transport=cookie', { email: account.email, password }, { quiet: true });
      await done();
    } catch (err) {
      showError(
        error,
        err.status === 401 ? 'This setup link is used or expired: ask the operator for a new one.' : explain(err),
      );
    }
  });
  show(
    'Choose your password',
    h('p', {}, 'Your cabinet account is ready: choose the password you will sign in with.'),
    form,
  );
}

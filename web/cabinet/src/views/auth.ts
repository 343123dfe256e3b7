// Sign-in (with the second factor) and the one-time setup link.
import { ApiError, call, explain } from '../api';
import { errorBox, h, showError, type Child } from '../dom';

interface AuthContext {
  show(title: string, ...content: Child[]): HTMLElement | null;
  done(): Promise<void>;
}

function field(
  id: string,
  label: string,
  attrs: Record<string, string | number | boolean>,
  hint?: string,
): HTMLElement {
  const hintId = hint ? `${id}-hint` : undefined;
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    h('input', { id, name: id, 'aria-describedby': hintId, ...attrs }),
    hint ? h('p', { id: hintId, class: 'hint' }, hint) : null,
  );
}

const status = (err: unknown) => (err instanceof ApiError ? err.status : 0);

export function signInView({ show, done }: AuthContext): void {
  const error = errorBox();
  const form = h(
    'form',
    { class: 'card narrow' },
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
    const totp = String(data.get('totp') ?? '').trim();
    const body = {
      email: String(data.get('email')),
      password: String(data.get('password')),
      ...(totp ? { totp } : {}),
    };
    try {
      await call('post', '/cabinet/v1/sessions', { query: { transport: 'cookie' }, body, quiet: true });
      await done();
    } catch (err) {
      showError(
        error,
        status(err) === 401
          ? 'Sign-in failed: check the email, the password and, if the second factor is on, the code.'
          : explain(err),
      );
    }
  });
  show('Sign in', h('p', {}, "The merchant owner's cabinet: your merchants' payments, payouts and settings."), form);
}

export function setupView({ show, token, done }: AuthContext & { token: string }): void {
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
    field('repeat-password', 'Repeat the password', { type: 'password', autocomplete: 'new-password', required: true }),
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
      const account = await call('post', '/cabinet/v1/account/setup', {
        body: { setup_token: token, password },
        quiet: true,
      });
      // The link is spent: it leaves the address bar, and the owner is signed in.
      history.replaceState(null, '', '/#/');
      await call('post', '/cabinet/v1/sessions', {
        query: { transport: 'cookie' },
        body: { email: account.email, password },
        quiet: true,
      });
      await done();
    } catch (err) {
      showError(
        error,
        status(err) === 401 ? 'This setup link is used or expired: ask the operator for a new one.' : explain(err),
      );
    }
  });
  show(
    'Choose your password',
    h('p', {}, 'Your cabinet account is ready: choose the password you will sign in with.'),
    form,
  );
}

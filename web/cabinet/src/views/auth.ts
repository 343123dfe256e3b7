// Sign-in (with the second factor) and the one-time setup link.
import { ApiError, call, explain } from '../api';
import { errorBox, h, showError, type Child } from '../../../shared/dom';

interface AuthContext {
  show(title: string, ...content: Child[]): HTMLElement | null;
  /** Signed in; `notice` is what the owner must hear first (wrong codes seen, recovery codes left). */
  done(notice?: string): Promise<void>;
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
    h(
      'details',
      { class: 'recovery' },
      h('summary', {}, 'Lost the authenticator? Use a recovery code'),
      field(
        'recovery',
        'Recovery code',
        { type: 'text', autocomplete: 'off', spellcheck: false },
        'One of the codes shown when you turned the second factor on; each works once.',
      ),
    ),
    error,
    h('button', { type: 'submit' }, 'Sign in'),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    showError(error, '');
    const data = new FormData(form);
    const totp = String(data.get('totp') ?? '').trim();
    const recovery = String(data.get('recovery') ?? '').trim();
    const body = {
      email: String(data.get('email')),
      password: String(data.get('password')),
      ...(recovery ? { recovery_code: recovery } : totp ? { totp } : {}),
    };
    try {
      const session = await call('post', '/cabinet/v1/sessions', { query: { transport: 'cookie' }, body, quiet: true });
      const notices: string[] = [];
      const failures = session.second_factor_failures?.attempts ?? 0;
      if (failures > 0)
        notices.push(
          `${failures} wrong authentication ${failures === 1 ? 'code was' : 'codes were'} given with your password since you last signed in: change the password.`,
        );
      if (session.recovery_codes_left !== undefined)
        notices.push(`Recovery codes left: ${session.recovery_codes_left}.`);
      await done(notices.join(' ') || undefined);
    } catch (err) {
      showError(
        error,
        status(err) === 401
          ? 'Sign-in failed: check the email, the password and, if the second factor is on, the code.'
          : err instanceof ApiError && err.code === 'second_factor_locked'
            ? `Too many wrong codes: the second factor is locked; try again in ${Math.ceil(Number(err.retryAfter ?? 900) / 60)} minutes, or ask the operator to reset it.`
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

// The recovery codes, shown once (at enrolment and when the owner makes new ones): saved as a
// file, printed or copied before the page lets them go.
import { announce, h } from '../../../shared/dom';
import { copyButton } from '../../../shared/format';

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

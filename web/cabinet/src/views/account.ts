// The owner's own account: the second factor (a QR code drawn here, never fetched), and what
// comes with it.
import QRCode from 'qrcode';
import { call, explain } from '../api';
import { announce, errorBox, h, showError, type Child } from '../../../shared/dom';
import { copyButton } from '../../../shared/format';
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

export function totpSection(ctx: ViewContext, account: Account, redraw: () => Promise<void>): HTMLElement {
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
          await call('post', '/cabinet/v1/account/totp/confirm', { body: { code: code.value.trim() } });
          await ctx.reloadAccount();
          announce('The second factor is on: sign-in now asks for a code.');
          await redraw();
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
    area,
  );
}

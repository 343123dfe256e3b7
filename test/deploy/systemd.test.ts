/** deploy/paygate.service: systemd accepts it, and it keeps the hardening the docs promise. */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';

const UNIT = path.resolve(import.meta.dirname, '../../deploy/paygate.service');
const analyze = (() => {
  try {
    execFileSync('systemd-analyze', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Everything systemd-analyze complains about (it warns about unknown or bad values on stderr with exit 0). */
function verify(file: string): string {
  const r = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
  return `${r.status === 0 ? '' : `exit ${r.status} `}${r.stderr}`.trim();
}

describe('deploy/paygate.service', () => {
  it('runs serve as a dedicated user with the passphrase from a credential file, hardened', () => {
    const unit = readFileSync(UNIT, 'utf8');
    for (const line of [
      'User=paygate',
      'NoNewPrivileges=yes',
      'ProtectSystem=strict',
      'ProtectHome=yes',
      'PrivateTmp=yes',
      'EnvironmentFile=/etc/paygate/paygate.env',
      'LoadCredential=passphrase:/etc/paygate/passphrase',
      'Environment=WALLET_PASSPHRASE_FILE=%d/passphrase',
      'KillSignal=SIGTERM',
      'StateDirectory=paygate',
      'UMask=0077',
    ]) {
      expect(unit).toContain(line);
    }
    expect(unit).not.toMatch(/^Environment=WALLET_PASSPHRASE=/m);
  });

  it.skipIf(!analyze)('passes systemd-analyze verify (which does reject a broken unit)', () => {
    const dir = tempDir();
    const copy = path.join(dir, 'paygate.service');
    copyFileSync(UNIT, copy);
    expect(verify(copy)).toBe('');
    const broken = path.join(dir, 'broken.service');
    writeFileSync(broken, readFileSync(UNIT, 'utf8').replace('ProtectSystem=strict', 'ProtectSystem=sometimes'));
    expect(verify(broken)).toMatch(/protect system value/i);
  });
});

/**
 * deploy/paygate.service: systemd accepts it, and it keeps the hardening the docs promise; so does
 * the template the replicas' drop-in (deploy/replicas/replica.conf) makes of it.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';
import { commandRuns, toolPresent } from '../helpers/tools.js';

const UNIT = path.resolve(import.meta.dirname, '../../deploy/paygate.service');
const REPLICA_DROP_IN = path.resolve(import.meta.dirname, '../../deploy/replicas/replica.conf');
const analyze = toolPresent('systemd-analyze', commandRuns('systemd-analyze'), 'apt-get install -y systemd');

/**
 * Everything systemd-analyze complains about (it warns about unknown or bad values on stderr with
 * exit 0). `unitPath`: a directory searched first for the unit and its drop-ins.
 */
function verify(file: string, unitPath?: string): string {
  const r = spawnSync('systemd-analyze', ['verify', file], {
    encoding: 'utf8',
    ...(unitPath ? { cwd: unitPath, env: { ...process.env, SYSTEMD_UNIT_PATH: `${unitPath}:` } } : {}),
  });
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
      // serve's stdout is the journal, not a terminal: JSON lines only.
      'StandardOutput=journal',
    ]) {
      expect(unit).toContain(line);
    }
    expect(unit).not.toMatch(/^Environment=WALLET_PASSPHRASE=/m);
    // Nothing between serve and the journal that would make its stdout a terminal or add lines.
    expect(unit).toMatch(/^ExecStart=\/usr\/bin\/node [^|>]*bin\/run\.js serve$/m);
    expect(unit).not.toMatch(/^StandardOutput=(tty|inherit)/m);
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

  it('replicas: the drop-in gives each instance its own environment file and keeps the hardening', () => {
    const dropIn = readFileSync(REPLICA_DROP_IN, 'utf8');
    // The empty assignment clears the unit's file: otherwise every instance would read both.
    expect(dropIn).toMatch(/^EnvironmentFile=\nEnvironmentFile=\/etc\/paygate\/paygate-%i\.env$/m);
    expect(dropIn).not.toMatch(/^(User|NoNewPrivileges|ProtectSystem|LoadCredential|ExecStart)=/m);
  });

  it.skipIf(!analyze)(
    'replicas: paygate@1 (the unit as a template with the drop-in) passes systemd-analyze verify',
    () => {
      const dir = tempDir();
      copyFileSync(UNIT, path.join(dir, 'paygate@.service'));
      mkdirSync(path.join(dir, 'paygate@.service.d'));
      copyFileSync(REPLICA_DROP_IN, path.join(dir, 'paygate@.service.d', 'replica.conf'));
      expect(verify('paygate@1.service', dir)).toBe('');
      // The drop-in is read: a bad value in it is reported against it.
      writeFileSync(
        path.join(dir, 'paygate@.service.d', 'replica.conf'),
        `${readFileSync(REPLICA_DROP_IN, 'utf8')}ProtectSystem=sometimes\n`,
      );
      expect(verify('paygate@1.service', dir)).toMatch(/replica\.conf.*protect system value/i);
    },
  );
});

/**
 * The programs some tests drive (Chromium, nginx, sqlmap, promtool, systemd-analyze). On a
 * developer's machine a missing one skips those tests with a warning saying how to install it;
 * where `PAYGATE_REQUIRE_TOOLS=1` (.ci/run sets it after installing them all) a missing one fails
 * the file instead, so CI can never pass by skipping.
 */
import { spawnSync } from 'node:child_process';

export function toolPresent(name: string, present: boolean, install: string): boolean {
  if (present) return true;
  const missing = `${name} is not installed: the tests that drive it cannot run (install it: ${install})`;
  if (process.env.PAYGATE_REQUIRE_TOOLS === '1')
    throw new Error(`${missing}; PAYGATE_REQUIRE_TOOLS=1 forbids skipping them`);
  console.warn(`${missing}; skipped`);
  return false;
}

/** Whether `command --version` runs here. */
export function commandRuns(command: string): boolean {
  return spawnSync(command, ['--version'], { stdio: 'ignore' }).status === 0;
}

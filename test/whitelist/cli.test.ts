/**
 * `whitelist add` of an entry already listed, through the built program: a shorter --delay is
 * refused with its code and changes nothing; a longer one lengthens the delay and says so.
 */
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/app.js';
import { runBuilt } from '../helpers/cli.js';
import { ON_POSTGRES } from '../helpers/database.js';

const ADDRESS = 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH';

describe.skipIf(ON_POSTGRES)('paygate whitelist add, again', () => {
  it('refuses a shorter --delay (invalid_state, remove and add again), lengthens with a longer one', async () => {
    const cwd = tempDir();
    const opts = { cwd, env: { TRON_NETWORK: 'devnet' }, unset: ['DATABASE_URL'] };
    expect((await runBuilt(['migrate', '--json'], opts)).code).toBe(0);
    const id = (await runBuilt(['merchant', 'create', '--name', 'Shop', '--json'], opts)).json.merchant_id as string;
    const add = (delay: string, json = true) =>
      runBuilt(
        [
          'whitelist',
          'add',
          id,
          '--asset',
          'USDT_TRON',
          '--address',
          ADDRESS,
          '--delay',
          delay,
          ...(json ? ['--json'] : []),
        ],
        opts,
      );
    const first = await add('24h');
    expect(first.json).toMatchObject({ created: true, delay_extended: false });

    const shorter = await add('1h');
    expect(shorter.code).toBe(1);
    expect(shorter.json.error.code).toBe('invalid_state');
    expect(shorter.json.error.message).toContain('remove the entry and add it again');

    const longer = await add('48h', false);
    expect(longer.code).toBe(0);
    expect(longer.stdout).toContain('its delay is lengthened');
    const listed = await runBuilt(['whitelist', 'list', id, '--json'], opts);
    const usable = Date.parse(listed.json.data[0].usable_from) - Date.parse(listed.json.data[0].created_at);
    expect(usable).toBe(48 * 3_600_000);
  }, 120_000);
});

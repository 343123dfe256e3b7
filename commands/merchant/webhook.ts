import { Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { idArg } from '../../src/cli/flags.js';
import { record } from '../../src/cli/format.js';
import { setEndpoint, type EndpointView } from '../../src/webhooks/endpoints.js';

export default class MerchantWebhook extends PaygateCommand {
  static override description =
    "Set a merchant's webhook endpoint. The signing secret (whsec_…) is printed once: when the endpoint is first set and on --rotate-secret (the old secret keeps signing for 24 h)";
  static override examples = [
    '<%= config.bin %> merchant webhook 6f1c2b9e-3a47-4d2e-9b1a-0c8d5e7f4a21 --url https://shop.example/paygate/webhooks',
    '<%= config.bin %> merchant webhook 6f1c2b9e-3a47-4d2e-9b1a-0c8d5e7f4a21 --url https://shop.example/paygate/webhooks --rotate-secret',
  ];
  static override args = { id: idArg('merchant id') };
  static override flags = {
    url: Flags.string({ required: true, description: 'https URL that receives the events' }),
    'rotate-secret': Flags.boolean({
      default: false,
      description: 'make a new secret; the current one keeps signing for 24 h',
    }),
    'allow-private': Flags.boolean({
      default: false,
      description:
        'allow http and private, loopback and link-local targets for this URL (an internal receiver); give it again with every change',
    }),
  };

  async run(): Promise<EndpointView> {
    const { args, flags } = await this.parse(MerchantWebhook);
    const ctx = await this.context();
    const view = await setEndpoint(ctx.database.db, ctx.clock, ctx.actor, args.id, {
      url: flags.url,
      rotateSecret: flags['rotate-secret'],
      allowPrivate: flags['allow-private'],
    });
    const { secret, ...rest } = view;
    this.say(record(rest));
    if (secret) this.say(`\nWebhook signing secret (shown once, store it now):\n${secret}`);
    return view;
  }
}

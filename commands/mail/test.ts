import { Args } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { record } from '../../src/cli/format.js';
import { sendTestMail } from '../../src/mail/service.js';

export default class MailTest extends PaygateCommand {
  static override description =
    'Send one test mail now over SMTP_URL, as MAIL_FROM, and say whether the mail server took it';
  static override examples = ['<%= config.bin %> mail test ops@example.com'];
  static override args = { address: Args.string({ required: true, description: 'where to send it' }) };

  async run(): Promise<{ to: string; from: string; sent: true }> {
    const { args } = await this.parse(MailTest);
    const ctx = await this.context();
    const r = await sendTestMail(ctx.config, args.address);
    this.say(record(r));
    return r;
  }
}

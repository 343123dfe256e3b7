import { Flags } from '@oclif/core';
import { PaygateCommand } from '../../src/cli/base.js';
import { idArg } from '../../src/cli/flags.js';
import { record } from '../../src/cli/format.js';
import { resolveByPerson, type ExceptionView } from '../../src/exceptions/service.js';

export default class ExceptionResolve extends PaygateCommand {
  static override description =
    'Mark an exception dealt with, with a note (exception_not_found for an unknown id; invalid_state when it is resolved already)';
  static override examples = [
    '<%= config.bin %> exception resolve 0b7e4f2a-5c1d-4e8b-9a3f-6d2c1b0e9f87 --note "customer paid the rest by card"',
  ];
  static override args = { id: idArg('exception id') };
  static override flags = {
    note: Flags.string({ required: true, description: 'what was done about it (1 to 500 characters)' }),
  };

  async run(): Promise<ExceptionView> {
    const { args, flags } = await this.parse(ExceptionResolve);
    const ctx = await this.context();
    const v = await resolveByPerson(ctx.database.db, ctx.clock, args.id, flags.note, {
      by: ctx.actor,
      actor: ctx.actor,
    });
    this.say(record({ ...v, resolution: v.resolution ? JSON.stringify(v.resolution) : null }));
    return v;
  }
}

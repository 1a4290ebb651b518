import { Args } from '@oclif/core';
import { ApiCommand, idempotencyFlag } from '../../lib/cli/base.js';
import { threedsFields } from '../../lib/output/views/payments.js';

export default class ThreedsComplete extends ApiCommand {
  static override summary = 'Complete the 3D Secure challenge of a session (the test card decides the result)';
  static override args = { session: Args.string({ description: 'Session id (UUID)', required: true }) };
  static override flags = { 'idempotency-key': idempotencyFlag };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ThreedsComplete);
    const result = await (await this.client(flags)).threeds.complete(args.session, { idempotencyKey: flags['idempotency-key'] });
    this.detail(result, '3D Secure', threedsFields);
  }
}

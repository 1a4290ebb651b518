import { Args } from '@oclif/core';
import { ApiCommand, idempotencyFlag, yesFlag } from '../../lib/cli/base.js';
import { EXIT } from '../../lib/cli/errors.js';
import { threedsFields } from '../../lib/output/views/payments.js';

export default class ThreedsComplete extends ApiCommand {
  static override summary = 'Complete the 3D Secure challenge of a session (the test card decides the result)';
  static override description =
    'Exits 1 when the authentication failed (the result is still printed), 0 when it succeeded.';
  static override examples = [
    '<%= config.bin %> threeds complete 0190…',
    '<%= config.bin %> threeds complete 0190… --json',
  ];
  static override args = { session: Args.string({ description: 'Session id (UUID)', required: true }) };
  static override flags = { 'idempotency-key': idempotencyFlag, yes: yesFlag };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(ThreedsComplete);
    const client = await this.client(flags);
    await this.confirmChange(`complete the 3D Secure challenge of session ${args.session}`, flags.yes);
    const result = await client.threeds.complete(args.session, { idempotencyKey: flags['idempotency-key'] });
    await this.detail(result, '3D Secure', threedsFields);
    // A failed authentication is a failed command (as a declined confirm is), so that a script notices.
    if (result.status === 'failed') {
      this.io.setExitCode(EXIT.API);
      this.notice(`3D Secure authentication failed; payment ${result.payment_id} is ${result.payment_status}.`);
    }
    return result;
  }
}

import { spawn } from 'node:child_process';
import { Args, Flags } from '@oclif/core';
import { ApiCommand } from '../../lib/cli/base.js';

export default class SessionsOpen extends ApiCommand {
  static override summary = 'Print (or open in a browser) the hosted checkout page of a payment session';
  static override examples = [
    '<%= config.bin %> sessions open 0190f3c2-…',
    '<%= config.bin %> sessions open 0190f3c2-… --browser',
  ];
  static override args = { id: Args.string({ description: 'Session id (UUID)', required: true }) };
  static override flags = {
    browser: Flags.boolean({ description: 'Open the page in the default browser (xdg-open / open / start)' }),
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(SessionsOpen);
    const session = await (await this.client(flags)).sessions.retrieve(args.id);
    const url = session.fallback_url;
    const shown = await this.print({ id: session.id, status: session.status, url }, () => url);
    const hint = await (await import('../../lib/cli/server.js')).unservedPageHint(url);
    if (hint) this.notice(hint);
    if (flags.browser) {
      const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'start' : 'xdg-open';
      const child = spawn(opener, [url], { detached: true, stdio: 'ignore', shell: process.platform === 'win32' });
      child.on('error', () => this.notice(`Could not start ${opener}; open the URL above yourself.`));
      child.unref();
    }
    return shown;
  }
}

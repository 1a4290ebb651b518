import { createReadStream, existsSync, readFileSync, statSync, watchFile, unwatchFile } from 'node:fs';
import { join } from 'node:path';
import { Flags } from '@oclif/core';
import { BaseCommand } from '../../lib/cli/base.js';
import { dataDirFlag } from '../../lib/cli/server.js';
import { defaultDataDir, LOG_FILE } from '../../lib/server/datadir.js';
import { CliError, EXIT } from '../../lib/cli/errors.js';
import { colorErr } from '../../lib/output/render.js';

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

function pretty(line: string): string {
  try {
    const { time, level, msg, pid: _pid, hostname: _h, ...rest } = JSON.parse(line) as Record<string, unknown>;
    const c = colorErr();
    const lvl = LEVELS[level as number] ?? String(level);
    const fields = Object.entries(rest)
      .map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
      .join(' ');
    return `${new Date(time as number).toISOString()} ${lvl === 'error' || lvl === 'fatal' ? c.red(lvl) : lvl} ${String(msg ?? '')} ${c.dim(fields)}`.trimEnd();
  } catch {
    return line;
  }
}

export default class ServerLogs extends BaseCommand {
  static override summary = 'Print the server log (JSON lines with --json)';
  static override examples = ['<%= config.bin %> server logs --lines 50', '<%= config.bin %> server logs --follow'];
  static override flags = {
    'data-dir': dataDirFlag,
    follow: Flags.boolean({ char: 'f', description: 'Keep printing new lines until Ctrl-C' }),
    lines: Flags.integer({
      char: 'n',
      description: 'How many of the last lines to print (default 50)',
      default: 50,
      min: 0,
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(ServerLogs);
    const file = join(flags['data-dir'] ?? defaultDataDir(), LOG_FILE);
    if (!existsSync(file) && !flags.follow)
      throw new CliError(`No log at ${file} (has a server run on this data directory?).`, EXIT.USAGE, 'no_log');
    const show = (line: string) => line && process.stdout.write((this.jsonMode ? line : pretty(line)) + '\n');
    // With --follow, Ctrl-C/SIGTERM end it cleanly; the handlers come first, before anything is printed.
    let stop = () => undefined as void;
    const stopped = flags.follow
      ? new Promise<void>((resolve) => {
          stop = resolve;
          process.once('SIGINT', () => stop());
          process.once('SIGTERM', () => stop());
        })
      : undefined;
    let offset = 0;
    if (existsSync(file)) {
      const text = readFileSync(file, 'utf8');
      offset = Buffer.byteLength(text);
      text.split('\n').filter(Boolean).slice(-flags.lines).forEach(show);
    }
    if (!flags.follow) return;
    let partial = '';
    const readMore = () => {
      if (!existsSync(file)) return;
      const size = statSync(file).size;
      if (size < offset) offset = 0; // reset/rotated
      if (size === offset) return;
      const stream = createReadStream(file, { start: offset, end: size - 1, encoding: 'utf8' });
      offset = size;
      stream.on('data', (chunk) => {
        const parts = (partial + String(chunk)).split('\n');
        partial = parts.pop() ?? '';
        parts.forEach(show);
      });
    };
    watchFile(file, { interval: 250 }, readMore);
    await stopped;
    unwatchFile(file);
  }
}

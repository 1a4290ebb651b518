// The CLI's promises probed by an adversarial user — through the real binary and through the commands' IO
// seam: ids that are dot segments.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { cliConfig, runInProcess } from '../helpers/inprocess.js';

interface Seen {
  method: string;
  url: string;
}

/** A server that records every request and answers 404 in the contract's error body, with a hostile header. */
async function recorder(): Promise<{ server: Server; port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    for await (const _ of req);
    seen.push({ method: req.method!, url: req.url! });
    // \u009b is the one-byte CSI: a header value may carry it (obs-text), a terminal may act on it.
    res.writeHead(404, { 'content-type': 'application/json', 'x-note': 'a\u009b2Jb' });
    res.end(JSON.stringify({ error: { type: 'invalid_request_error', code: 'route_not_found', message: 'recorder' } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, port: (server.address() as { port: number }).port, seen };
}

let r: Awaited<ReturnType<typeof recorder>>;
const base = () => `http://127.0.0.1:${r.port}/functions/v1`;
beforeAll(async () => {
  r = await recorder();
});
afterAll(async () => {
  await new Promise((done) => r?.server.close(done));
});

describe('an id that is a dot segment is refused before any request', () => {
  // A server or proxy that resolves dot segments (the WHATWG URL parser does, %2e included) would turn
  // /sessions/. into /sessions/ — a list — and /ledger-accounts/../unfreeze into /unfreeze.
  it('the real binary: `sessions get .` and `ledger unfreeze ..` exit 2 with a usage error', async () => {
    for (const args of [['sessions', 'get', '.'], ['payments', 'get', '..'], ['ledger', 'unfreeze', '..', '--yes'], ['customers', 'delete', '.', '--yes']]) {
      const out = await runCli([...args, '--base-url', base(), '--api-key', 'sk_test_x', '--json']);
      expect(out.code, `${args.join(' ')}: ${out.stdout}${out.stderr}`).toBe(2);
      expect(out.json().error).toMatchObject({ code: 'usage_error' });
    }
    expect(r.seen).toEqual([]);
  });

  it('in process, every command with a required argument refuses "." and ".." without sending anything', async () => {
    const cfg = await cliConfig();
    const withArgs = cfg.commands.filter((c) => Object.values(c.args ?? {}).some((a) => a.required) && !/^(server|profiles):/.test(c.id) && c.id !== 'api');
    expect(withArgs.length).toBeGreaterThan(50);
    const failures: string[] = [];
    for (const dots of ['.', '..']) {
      for (const c of withArgs) {
        const required = Object.values(c.args).filter((a) => a.required);
        const argv = [...required.map(() => dots), '--base-url', base(), '--api-key', 'sk_test_x'];
        for (const [name, f] of Object.entries(c.flags)) if (f.required) argv.push(`--${name}`, f.type === 'option' && f.options?.length ? f.options[0]! : '1');
        if ('yes' in c.flags) argv.push('--yes');
        const out = await runInProcess(c.id.split(':').join(' '), argv);
        if (out.code !== 2 || out.requests.length !== 0) failures.push(`${c.id} ${dots}: exit ${out.code}, ${out.requests.map((q) => q.path).join(' ')}, ${out.stderr.trim()}`);
      }
    }
    expect(failures).toEqual([]);
    expect(r.seen).toEqual([]);
  });
});

// The documentation's webhook examples are true: docs/api.md's worked signature example is what the code computes,
// and the README's receiver, run as written (only its port changed) in a default CommonJS project, verifies and
// prints a real delivery — from a server and from a seeded one (--seed), whose account clock stands at 2025-01-01 —
// and a request signed by Standard Webhooks' own library, and refuses forged ones. The README's local loop runs as a
// user types it (`payorch` on the PATH): the listener's secret written to .env, the receiver started with it, and
// `listen` forwarding what `trigger` makes, verified by the receiver.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signatureHeader, verifyWebhook } from '../../dist/webhooks.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/tmp.js';
import { BIN } from '../helpers/cli.js';
import { closedPort } from '../helpers/util.js';
import { eventually } from '../cli-events/util.js';
import { newSession } from '../payments/util.js';
import { readmeSnippet } from '../helpers/readme.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('docs/api.md "Signatures"', () => {
  it("the worked example's header is the one the code computes, and verifyWebhook accepts it", () => {
    const docs = readFileSync(join(root, 'docs/api.md'), 'utf8');
    const section = docs.slice(docs.indexOf('### Signatures'));
    const block = /```\n([\s\S]*?)```/.exec(section)![1]!;
    const field = (name: string) => new RegExp(`^${name}:\\s+(.*)$`, 'm').exec(block)![1]!.trim();
    const secret = field('secret');
    const timestamp = Number(field('timestamp'));
    const body = field('body');
    const header = field('header');
    expect(signatureHeader(body, secret, timestamp)).toBe(header);
    expect(verifyWebhook(body, header, secret, { now: () => timestamp }).id).toBe(JSON.parse(body).id);
    // Standard Webhooks' signature of the same example, as its own library makes it, with the event id as webhook-id
    const id = JSON.parse(body).id as string;
    const standard = field('standard').split(/\s+/)[0]!;
    expect(new Webhook(secret).sign(id, new Date(timestamp * 1000), body)).toBe(standard);
    const headers = { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': standard };
    expect(verifyWebhook(body, headers, secret, { now: timestamp }).id).toBe(id);
  });

  it('"Receiving webhooks": `now` is Unix seconds, a number or a function returning one, as the section says', () => {
    const docs = readFileSync(join(root, 'docs/api.md'), 'utf8');
    const receiving = docs.slice(docs.indexOf('### Receiving webhooks')).replace(/\s+/g, ' ');
    expect(receiving).toMatch(/`now` \(Unix seconds: a number, or a function that returns one/);
    const secret = 'whsec_now';
    const body =
      '{"id":"evt_now","object":"event","type":"payment.captured","created":1767225600,"livemode":false,"data":{"object":{}}}';
    const header = signatureHeader(body, secret, 1767225600);
    expect(verifyWebhook(body, header, secret, { now: 1767225600 + 300 }).id).toBe('evt_now');
    expect(() => verifyWebhook(body, header, secret, { now: 1767225600 + 301 })).toThrow(
      expect.objectContaining({ code: 'timestamp_outside_tolerance' }),
    );
  });
});

describe("the README's receiver", () => {
  it.each([
    ['a server', {}],
    ['a seeded server (--seed), its clock at 2025-01-01', { seed: 7, memory: true }],
  ])(
    'verifies and prints a real delivery from %s, and answers 400 with the code to a forged one',
    async (_, options) => {
      const readme = readFileSync(join(root, 'README.md'), 'utf8');
      const code = /### Receiving webhooks[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)![1]!;
      expect(code).toContain('.listen(3000)');
      // A default `npm init -y` project (CommonJS) where `payorch/webhooks` resolves to this package, as in an
      // application that installed it; the receiver saved as receiver.js.
      const dir = tempDir();
      writeFileSync(
        join(dir, 'package.json'),
        JSON.stringify({ name: 'app', version: '1.0.0', main: 'index.js', type: 'commonjs' }),
      );
      mkdirSync(join(dir, 'node_modules'));
      symlinkSync(root, join(dir, 'node_modules', 'payorch'), 'dir');
      writeFileSync(
        join(dir, 'receiver.js'),
        code.replace('.listen(3000)', '.listen(Number(process.env.PORT), () => console.log("listening"))'),
      );
      const port = await closedPort();
      const s = await startTestServer(options);
      const we = (
        await s.request('POST', '/webhook-endpoints', {
          body: { url: `http://127.0.0.1:${port}/`, enabled_events: ['payment_session.created'] },
        })
      ).body;
      const child = spawn(process.execPath, [join(dir, 'receiver.js')], {
        env: { ...process.env, PORT: String(port), WEBHOOK_SECRET: we.secret },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      try {
        const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
        expect((await lines.next()).value).toBe('listening');
        const session = await newSession(s);
        const line = (await lines.next()).value as string;
        const [eventId, type, objectId] = line.split(' ');
        expect(eventId).toMatch(/^evt_/);
        expect([type, objectId]).toEqual(['payment_session.created', session.id]);
        // Standard Webhooks' headers alone, as that library signs them, with the endpoint's secret
        const standard = '{"id":"evt_standard","object":"event","type":"x","data":{"object":{"id":"o_1"}}}';
        const at = new Date();
        const signed = await fetch(`http://127.0.0.1:${port}/`, {
          method: 'POST',
          headers: {
            'webhook-id': 'evt_standard',
            'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
            'webhook-signature': new Webhook(we.secret).sign('evt_standard', at, standard),
          },
          body: standard,
        });
        expect(signed.status).toBe(200);
        expect((await lines.next()).value).toBe('evt_standard x o_1');
        const forged = await fetch(`http://127.0.0.1:${port}/`, {
          method: 'POST',
          headers: {
            'x-payorch-signature': signatureHeader(
              '{"id":"evt_x","object":"event","type":"x","data":{}}',
              'whsec_wrong',
              Math.floor(Date.now() / 1000),
            ),
          },
          body: '{"id":"evt_x","object":"event","type":"x","data":{}}',
        });
        expect([forged.status, await forged.text()]).toEqual([400, 'signature_mismatch']);
        const unsigned = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: standard });
        expect([unsigned.status, await unsigned.text()]).toEqual([400, 'missing_header']);
      } finally {
        child.kill();
        await s.close();
      }
    },
  );
});

/** `text` with `from` replaced by `to`, which must be there exactly once. */
function replaceOnce(text: string, from: string, to: string): string {
  expect(text.split(from), `the snippet names ${from} once`).toHaveLength(2);
  return text.replace(from, to);
}

describe("the README's local loop: .env, receiver, listen, trigger", () => {
  it('the secret `listen --print-secret` writes to .env is the one the receiver reads, and it verifies what listen forwards', async () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const port = await closedPort();
    const terminals = readmeSnippet('listen-terminals', 'sh')
      .split('\n')
      .filter((l) => l.startsWith('payorch'))
      .map((l) => l.replace(/\s+#.*$/, ''));
    expect(terminals).toHaveLength(3);
    const [start, listen, trigger] = [
      replaceOnce(terminals[0]!, 'payorch server start', `payorch server start --port 0`),
      replaceOnce(terminals[1]!, 'localhost:3000', `localhost:${port}`),
      terminals[2]!,
    ];
    const receiverCode = /### Receiving webhooks[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)![1]!;

    // A user's shell in a default CommonJS project: `payorch` on PATH (`npm link`), a home of its own, no terminal.
    const app = tempDir();
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', type: 'commonjs' }));
    mkdirSync(join(app, 'node_modules'));
    symlinkSync(root, join(app, 'node_modules', 'payorch'), 'dir');
    mkdirSync(join(app, 'bin'));
    symlinkSync(BIN, join(app, 'bin', 'payorch'));
    writeFileSync(join(app, 'receiver.js'), replaceOnce(receiverCode, '.listen(3000)', `.listen(${port})`));
    const env: NodeJS.ProcessEnv = { PATH: `${join(app, 'bin')}:${process.env.PATH}`, HOME: app, NO_COLOR: '1' };
    env.PAYORCH_HOME = join(app, 'home');
    const children: ChildProcessWithoutNullStreams[] = [];
    const shell = (line: string) => {
      // a process group of its own: the receiver's shell and its node stop together
      const child = spawn('bash', ['-c', line], { cwd: app, env, stdio: 'pipe', detached: true });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      children.push(child);
      return { child, out: () => out };
    };
    const server = shell(`exec ${start}`);
    try {
      await eventually(() => server.out().includes('listening on'));
      // the .env line and the receiver's start, as written
      const receiver = shell(readmeSnippet('listen-env', 'sh'));
      await eventually(
        async () =>
          (await fetch(`http://127.0.0.1:${port}/`, { method: 'POST' }).catch(() => undefined))?.status === 400,
      );
      expect(readFileSync(join(app, '.env'), 'utf8')).toMatch(/^WEBHOOK_SECRET=whsec_[0-9a-f]{48}\n$/);
      const forwarding = shell(`exec ${listen}`);
      await eventually(() => forwarding.out().includes('Ready: listening'));
      const triggered = spawnSync('bash', ['-c', trigger], { cwd: app, env, encoding: 'utf8', timeout: 60_000 });
      expect(triggered.status, triggered.stderr).toBe(0);
      // verified by the receiver: it printed the event, and answered 200 to listen
      const line = await eventually(() => /^evt_\w+ payment\.captured \S+$/m.exec(receiver.out())?.[0]);
      expect(forwarding.out()).toMatch(new RegExp(`--> 200 POST http://localhost:${port}/webhooks`));
      expect(forwarding.out()).toContain(line.split(' ')[0]!);
      expect(forwarding.out()).not.toMatch(/--> 400/);
    } finally {
      for (const c of children.reverse()) {
        if (c.exitCode !== null || c.signalCode !== null) continue;
        const gone = new Promise((resolve) => c.once('close', resolve));
        try {
          process.kill(-c.pid!, 'SIGINT');
        } catch {
          continue; // gone already
        }
        await gone;
      }
    }
  }, 120_000);
});

// The documentation's webhook examples are true: docs/api.md's worked signature example is what the code computes,
// and the README's receiver, run as written (only its port changed) in a default CommonJS project, verifies and
// prints a real delivery — from a server and from a seeded one (--seed), whose account clock stands at 2025-01-01 —
// and a request signed by Standard Webhooks' own library, and refuses forged ones.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signatureHeader, verifyWebhook } from '../../dist/webhooks.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/tmp.js';
import { closedPort } from '../foundation/util.js';
import { newSession } from '../payments/util.js';

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

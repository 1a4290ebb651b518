#!/usr/bin/env node
// A webhook receiver for the benchmark: answers every POST 200 after reading its body; counts them. Prints its URL.
import { createServer } from 'node:http';

let received = 0;
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.method === 'POST') received++;
    res.writeHead(200, { 'content-type': 'text/plain' }).end(req.method === 'GET' ? String(received) : 'ok');
  });
});
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${server.address().port}/webhooks` }) + '\n'),
);
process.on('SIGTERM', () => server.close(() => process.exit(0)));

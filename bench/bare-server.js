#!/usr/bin/env node
// The baseline: a bare node:http server that reads and parses the same JSON body and answers a JSON object
// of the same size as the real endpoint does. Prints its URL.
import { createServer } from 'node:http';

const size = Number(process.argv[2] ?? 800);
const reply = JSON.stringify({ id: '0'.repeat(36), object: 'x', pad: 'x'.repeat(Math.max(0, size - 60)) });
const server = createServer((req, res) => {
  let data = '';
  req.setEncoding('utf8');
  req.on('data', (c) => (data += c));
  req.on('end', () => {
    if (data) JSON.parse(data);
    res.writeHead(req.method === 'POST' ? 201 : 200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(reply),
    });
    res.end(reply);
  });
});
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` }) + '\n'),
);
process.on('SIGTERM', () => server.close(() => process.exit(0)));

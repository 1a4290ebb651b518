// The statements a PostgreSQL client sends, counted on the wire: a TCP proxy in front of a PostgreSQL server that
// passes every byte both ways unchanged and reads the client's messages as they go by (the frontend protocol,
// https://www.postgresql.org/docs/current/protocol-message-formats.html). A statement is a simple Query ('Q': its
// text as sent, a BEGIN for instance) or an Execute ('E': the text of the statement its portal was bound to, by
// Parse/Bind). So BEGIN, COMMIT, LOCK and SAVEPOINT count as what they are, one each, whichever protocol the driver
// sends them in; a Parse or a Describe alone (a statement prepared, not run) counts nothing. A count, not a time:
// the same on any machine. The server under test is given the proxy's URL and knows nothing of it: nothing is
// counted, nor costs anything, without the proxy.
//
//   const proxy = await statementProxy(5432);
//   proxy.url('mydb')                           // postgres://postgres@127.0.0.1:<proxy's port>/mydb
//   proxy.counting(true); …; proxy.counting(false)
//   proxy.take()                                // [{ text, connection }] of the statements sent while counting
//   await proxy.close()
import { connect, createServer } from 'node:net';

/** Codes of the untyped first messages that are not a startup: SSLRequest and GSSENCRequest (answered, then a startup). */
const NEGOTIATIONS = new Set([80877103, 80877104]);

/**
 * A proxy on a free port of 127.0.0.1 to the PostgreSQL server at `host:port`; resolves once it listens.
 * @param {number} port
 * @param {string} [host]
 */
export async function statementProxy(port, host = '127.0.0.1') {
  /** @type {{ text: string, connection: number }[]} */
  let seen = [];
  let on = false;
  let connections = 0;
  const sockets = new Set();
  const server = createServer((client) => {
    const id = ++connections;
    const upstream = connect(port, host);
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    upstream.pipe(client);
    /** Prepared statements by name ('' the unnamed one), portals by name: their text. */
    const statements = new Map();
    const portals = new Map();
    let started = false;
    let pending = Buffer.alloc(0);
    const cstring = (buf, at) => {
      const end = buf.indexOf(0, at);
      return { text: buf.toString('utf8', at, end), next: end + 1 };
    };
    const record = (text) => {
      if (on) seen.push({ text: text ?? '(a portal of no known statement)', connection: id });
    };
    client.on('data', (chunk) => {
      upstream.write(chunk);
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      for (;;) {
        if (!started) {
          if (pending.length < 8) return;
          const length = pending.readInt32BE(0);
          if (pending.length < length) return;
          if (!NEGOTIATIONS.has(pending.readInt32BE(4))) started = true;
          pending = pending.subarray(length);
          continue;
        }
        if (pending.length < 5) return;
        const length = pending.readInt32BE(1);
        if (pending.length < 1 + length) return;
        const type = String.fromCharCode(pending[0]);
        const body = pending.subarray(5, 1 + length);
        pending = pending.subarray(1 + length);
        if (type === 'Q') record(cstring(body, 0).text);
        else if (type === 'P') {
          const name = cstring(body, 0);
          statements.set(name.text, cstring(body, name.next).text);
        } else if (type === 'B') {
          const portal = cstring(body, 0);
          portals.set(portal.text, statements.get(cstring(body, portal.next).text));
        } else if (type === 'E') record(portals.get(cstring(body, 0).text));
      }
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(undefined));
  });
  const own = /** @type {{ port: number }} */ (server.address()).port;
  return {
    port: own,
    /** @param {string} database @param {string} [user] */
    url: (database, user = 'postgres') => `postgres://${user}@127.0.0.1:${own}/${database}`,
    /** @param {boolean} yes */
    counting(yes) {
      on = yes;
    },
    /** The statements sent while counting, since the last take. */
    take() {
      const out = seen;
      seen = [];
      return out;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}

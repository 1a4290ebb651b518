// The driver's socket, its writes of one event-loop turn sent together.
import { connect, type Socket } from 'node:net';

/**
 * The driver's connection to PostgreSQL, its writes of one event-loop turn sent together (`cork` until the turn's
 * check phase): the driver writes each statement of 1 KB or more at once, so a transaction's statements sent without
 * waiting (`send`) would each be a system call and a wake-up of PostgreSQL's backend. Returned while still connecting:
 * the driver's first message waits in the socket, and its errors reach the driver's handlers as a socket of its own
 * would.
 */
export function coalescingSocket(options: { host: string[]; port: number[]; path?: string | false }): Socket {
  const socket = options.path ? connect(options.path) : connect(options.port[0]!, options.host[0]!);
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  let corked = false;
  socket.write = ((...args: unknown[]) => {
    if (!corked) {
      corked = true;
      socket.cork();
      setImmediate(() => {
        corked = false;
        socket.uncork();
      });
    }
    return write(...args);
  }) as typeof socket.write;
  return socket;
}

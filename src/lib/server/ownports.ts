// The server's own connections to itself (docs/api.md "Rate limits"): the webhook sender marks, in memory shared
// between its thread and the server's, the local port of each connection it has open to the server's own port on
// loopback — before it writes a byte — and clears the mark when the connection closes. A request that arrives over
// loopback from a marked port is the server's own delivery. While that connection is open no other socket can
// have the same pair of ports, so no client can pass for it.

/** One byte per TCP port. */
export const OWN_PORTS_BYTES = 65_536;

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

export const isLoopback = (address: string | undefined): boolean => address !== undefined && LOOPBACK.test(address);

/** Marks `localPort` while the connection lasts, when it goes from loopback to the server's own `serverPort`. */
export function markWhileOpen(
  ports: Uint8Array,
  serverPort: number,
  socket: { remotePort?: number; remoteAddress?: string; localPort?: number },
  onClose: (f: () => void) => void,
): void {
  if (socket.remotePort !== serverPort || !isLoopback(socket.remoteAddress) || socket.localPort === undefined) return;
  const port = socket.localPort;
  Atomics.store(ports, port, 1);
  onClose(() => Atomics.store(ports, port, 0));
}

/** Whether a request from `address`:`port` comes from one of the server's own marked connections. */
export const isOwnConnection = (ports: Uint8Array, address: string | undefined, port: number | undefined): boolean =>
  port !== undefined && Atomics.load(ports, port) === 1 && isLoopback(address);

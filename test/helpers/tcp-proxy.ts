import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  via(url: string): string;
  /**
   * The server "goes away": every open connection is reset and new ones are reset on arrival,
   * as a client sees a stopped or restarting server.
   */
  cut(): void;
  /** Connections are forwarded again. */
  restore(): void;
  /**
   * The server "freezes" (stopped process, partition that drops packets): connections stay open,
   * but nothing goes through either way until thaw(), which delivers what was held, in order.
   */
  freeze(): void;
  thaw(): void;
  /** Data chunks the clients sent while frozen (held, not yet delivered), as text. */
  heldFromClients(): string[];
  /** Connections accepted since start (to tell that a client reconnected). */
  accepted(): number;
  close(): Promise<void>;
}

/**
 * A TCP proxy on 127.0.0.1 in front of a real server (PostgreSQL, Redis), so a test can take the
 * server away from one client and give it back without touching the server that others share.
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let down = false;
  let frozen = false;
  let held: Array<{ to: Socket; chunk: Buffer; fromClient: boolean }> = [];
  let accepted = 0;
  const reset = (s: Socket) => {
    if (!s.destroyed) s.resetAndDestroy();
  };

  const server: Server = createServer((client) => {
    accepted++;
    if (down) return reset(client);
    const upstream = connect(target.port, target.host);
    open.add(client);
    open.add(upstream);
    const end = () => {
      open.delete(client);
      open.delete(upstream);
      reset(client);
      reset(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    const forward = (from: Socket, to: Socket, fromClient: boolean) =>
      from.on('data', (chunk: Buffer) => {
        if (frozen) held.push({ to, chunk, fromClient });
        else to.write(chunk);
      });
    forward(client, upstream, true);
    forward(upstream, client, false);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('proxy did not bind');

  return {
    port: address.port,
    via(url: string) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(address.port);
      return u.toString();
    },
    cut() {
      down = true;
      for (const s of open) reset(s);
      open.clear();
    },
    restore() {
      down = false;
    },
    freeze() {
      frozen = true;
    },
    thaw() {
      frozen = false;
      const pending = held;
      held = [];
      for (const h of pending) if (!h.to.destroyed) h.to.write(h.chunk);
    },
    heldFromClients: () => held.filter((h) => h.fromClient).map((h) => h.chunk.toString('latin1')),
    accepted: () => accepted,
    async close() {
      down = true;
      for (const s of open) reset(s);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Host and port of a postgres:// or redis:// URL (default ports when absent). */
export function hostPort(url: string): { host: string; port: number } {
  const u = new URL(url);
  const fallback = u.protocol.startsWith('redis') ? 6379 : 5432;
  return { host: u.hostname || '127.0.0.1', port: u.port ? Number(u.port) : fallback };
}

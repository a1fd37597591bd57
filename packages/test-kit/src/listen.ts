// Starting and stopping a fake on 127.0.0.1: what the fake Messages API and the fake web share.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Listening {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** Stops listening and ends every open connection, idle or not. */
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 (`port` 0 lets the system choose) and says where. */
export async function listenOnLoopback(server: Server, port = 0): Promise<Listening> {
  // Node's 5 s keep-alive lets the server close an idle connection just as a client reuses it,
  // which the client sees as ECONNRESET; on a busy machine that happens. Real services keep
  // connections open far longer, so the fakes do too (close() ends them all).
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

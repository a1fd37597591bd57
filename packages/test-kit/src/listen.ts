// Starting and stopping a fake on 127.0.0.1, and its control routes: what the fake Messages API and
// the fake web share.
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/** Where the control routes start; nothing under it is recorded as a client's request. */
export const CONTROL_PREFIX = "/_fake/";

/** What a control route without its token is answered: where the token is, never the token. */
export const NEEDS_TOKEN =
  "the control routes are at /_fake/<token>/ with this server's token (fake-server prints it as control: <url>)";

/**
 * A token for the control routes: 128 random bits. Anything on the machine can reach a loopback
 * port, a learner's program graded beside other learners' checks included: only the one who
 * started the fake (the runner, or the person who ran fake-server) may read or change it.
 */
export function controlToken(): string {
  return randomBytes(16).toString("base64url");
}

/** The route `path` names below `/_fake/<token>/` (`requests`), or undefined without the token. */
export function controlRoute(path: string, token: string): string | undefined {
  const rest = path.slice(CONTROL_PREFIX.length);
  const slash = rest.indexOf("/");
  const given = Buffer.from(slash < 0 ? rest : rest.slice(0, slash));
  const wanted = Buffer.from(token);
  if (slash < 0 || given.length !== wanted.length || !timingSafeEqual(given, wanted)) {
    return undefined;
  }
  return rest.slice(slash + 1);
}

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

// The benchmark's floor: a server that does no work of its own. It answers every POST with bytes
// the fake server produced earlier for the same path (the streamed ones when the body asks for a
// stream), so a round trip against it costs what the client, its SDK and Node's HTTP cost.
// Usage: canned-server FILE, where FILE maps "<path> json|sse|get" to {contentType, body} (`get`:
// a GET of the path, as the fake web answers it).
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

interface Canned {
  contentType: string;
  body: string;
}

const file = process.argv[2];
if (file === undefined) throw new Error("usage: canned-server FILE");
const answers = new Map(
  Object.entries(JSON.parse(readFileSync(file, "utf8")) as Record<string, Canned>),
);
let served = 0;

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const streams = Buffer.concat(chunks).includes('"stream":true');
    const kind = req.method === "GET" ? "get" : streams ? "sse" : "json";
    const canned = answers.get(`${req.url} ${kind}`);
    if (canned === undefined) {
      res.writeHead(404).end();
      return;
    }
    served += 1;
    res.writeHead(200, {
      "content-type": canned.contentType,
      "content-length": Buffer.byteLength(canned.body),
      "request-id": `req_${served}`,
      "x-request-id": `req_${served}`,
    });
    res.end(canned.body);
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
});
process.once("SIGTERM", () => {
  server.close();
  server.closeAllConnections();
});

// A server in front of the test-kit's fake one that sends a streamed reply up to its first words
// and holds the rest until released. A client that shows words as they arrive shows them while
// the rest is held; one that waits for the whole message shows nothing until the backstop lets
// the rest go. Order, not time, tells the two apart: a busy machine only makes both slower.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface HeldStream {
  url: string;
  /** Sends the rest of the reply; the first caller's name is kept in `releasedBy`. */
  release(by: string): void;
  releasedBy(): string | undefined;
  close(): Promise<void>;
}

// Far longer than a client needs to read the first words, however busy the machine.
const BACKSTOP_MS = 15_000;

export async function holdAfterFirstWords(upstream: string): Promise<HeldStream> {
  let releasedBy: string | undefined;
  let open!: () => void;
  const released = new Promise<void>((resolve) => {
    open = resolve;
  });
  const release = (by: string) => {
    releasedBy ??= by;
    open();
  };
  let backstop: NodeJS.Timeout | undefined;
  const server = createServer(async (req, res) => {
    const body: Buffer[] = [];
    for await (const chunk of req) body.push(chunk as Buffer);
    const answer = await fetch(`${upstream}${req.url ?? ""}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: Buffer.concat(body),
    });
    const events = (await answer.text()).split(/(?<=\n\n)/);
    const firstWords = events.findIndex((event) => event.includes('"text_delta"'));
    res.writeHead(answer.status, {
      "content-type": answer.headers.get("content-type") ?? "text/plain",
    });
    res.write(events.slice(0, firstWords + 1).join(""));
    backstop = setTimeout(() => release("the backstop"), BACKSTOP_MS);
    await released;
    res.end(events.slice(firstWords + 1).join(""));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    release,
    releasedBy: () => releasedBy,
    close: async () => {
      clearTimeout(backstop);
      release("close");
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

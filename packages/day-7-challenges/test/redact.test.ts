import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import type { Ui } from "../src/diff-ui.ts";
import { ReadState } from "../src/fs-safety.ts";
import { redact, secretValues } from "../src/redact.ts";
import { defaultTools, type ToolContext } from "../src/tools/index.ts";

const CANARY = "canary-5f0c2e91d7";

// A folder of its own and a person who says yes to every change.
function context(files: Record<string, string> = {}): ToolContext {
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), "redact-")));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(cwd, name), text);
  const ui: Ui = {
    colour: false,
    print: () => {},
    confirm: async () => true,
    choose: async () => ({ kind: "skipped" }),
  };
  return { cwd, readState: new ReadState(), signal: new AbortController().signal, ui };
}

test("the secrets are credential variables of 8 characters or more, and the provider's key", () => {
  const secrets = secretValues({
    ACME_TOKEN: CANARY,
    DB_PASSWORD: "hunter2-hunter2",
    GITHUB_CREDENTIALS: "ghp_abcdefgh",
    api_key: "lowercase-name-too",
    SHORT_SECRET: "1234567",
    ANTHROPIC_AUTH_TOKEN: "sk-1",
    HOME: "/home/someone-long",
    EMPTY_KEY: "",
  });
  expect(secrets).toEqual([
    { name: "api_key", value: "lowercase-name-too" },
    { name: "ACME_TOKEN", value: CANARY },
    { name: "DB_PASSWORD", value: "hunter2-hunter2" },
    { name: "GITHUB_CREDENTIALS", value: "ghp_abcdefgh" },
    { name: "ANTHROPIC_AUTH_TOKEN", value: "sk-1" },
  ]);
});

test("a value becomes its variable's name; a longer value holding a shorter one is hidden whole", () => {
  const secrets = secretValues({ OUTER_TOKEN: `x-${CANARY}-y`, INNER_TOKEN: CANARY });
  expect(redact(`a ${CANARY} b x-${CANARY}-y c`, secrets)).toBe(
    "a [redacted:INNER_TOKEN] b [redacted:OUTER_TOKEN] c",
  );
  // One value, two names: always the same one.
  expect(redact(CANARY, secretValues({ B_KEY: CANARY, A_KEY: CANARY }))).toBe("[redacted:A_KEY]");
  expect(redact("nothing here", secrets)).toBe("nothing here");
});

test("every tool result is redacted before the model sees it, an error's too", async () => {
  const tools = defaultTools({ secrets: secretValues({ ACME_TOKEN: CANARY }) });
  const ctx = context({ "config.txt": `token=${CANARY}\n` });
  const read = await tools.run(
    { id: "call_1", name: "read_file", arguments: { path: "config.txt" } },
    ctx,
  );
  expect(read.content).toContain("token=[redacted:ACME_TOKEN]");
  expect(read.content).not.toContain(CANARY);
  const missing = await tools.run(
    { id: "call_2", name: "read_file", arguments: { path: `${CANARY}.txt` } },
    ctx,
  );
  expect(missing.isError).toBe(true);
  expect(missing.content).toContain("[redacted:ACME_TOKEN].txt");
  expect(missing.content).not.toContain(CANARY);
});

test("file_write and file_edit refuse to write the marker in place of a secret", async () => {
  const tools = defaultTools({ secrets: secretValues({ ACME_TOKEN: CANARY }) });
  const ctx = context({ "config.txt": `token=${CANARY}\nmode=dev\n` });
  await tools.run({ id: "call_1", name: "read_file", arguments: { path: "config.txt" } }, ctx);
  const refusal =
    "refusing to write [redacted:…]: it stands for a secret agent-code kept from you; nothing written";
  const write = await tools.run(
    {
      id: "call_2",
      name: "file_write",
      arguments: { file_path: "config.txt", content: "token=[redacted:ACME_TOKEN]\nmode=prod\n" },
    },
    ctx,
  );
  expect(write).toEqual({ toolCallId: "call_2", content: refusal, isError: true });
  const edit = await tools.run(
    {
      id: "call_3",
      name: "file_edit",
      arguments: {
        file_path: "config.txt",
        old_string: "mode=dev",
        new_string: "token=[redacted:ACME_TOKEN]",
      },
    },
    ctx,
  );
  expect(edit).toEqual({ toolCallId: "call_3", content: refusal, isError: true });
  expect(readFileSync(join(ctx.cwd, "config.txt"), "utf8")).toBe(`token=${CANARY}\nmode=dev\n`);
  // An edit beside the secret still works: the file keeps its real value.
  const beside = await tools.run(
    {
      id: "call_4",
      name: "file_edit",
      arguments: { file_path: "config.txt", old_string: "mode=dev", new_string: "mode=prod" },
    },
    ctx,
  );
  expect(beside.isError).toBe(false);
  expect(readFileSync(join(ctx.cwd, "config.txt"), "utf8")).toBe(`token=${CANARY}\nmode=prod\n`);
});

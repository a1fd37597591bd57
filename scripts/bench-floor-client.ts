// The smallest program that asks the model through the Anthropic SDK: one streamed message, its
// text printed. `pnpm bench:floor` bundles it as a stage's CLI is bundled, with the stage's SDK,
// to show what a run cannot cost less than (bench-floor.ts).
import Anthropic from "@anthropic-ai/sdk";

const client = new Anthropic();
const message = await client.messages
  .stream({
    model: "deepseek-v4-flash",
    max_tokens: 1024,
    messages: [{ role: "user", content: process.argv[2] ?? "hello" }],
  })
  .finalMessage();
for (const block of message.content) {
  if (block.type === "text") process.stdout.write(`${block.text}\n`);
}

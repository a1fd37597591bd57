// The second, fourth… lesson's replay (test/docs-replay-lessons.ts), in a file of its own so that
// Vitest runs it beside docs-replay.test.ts, which has the first, third….
import { replayLessons } from "./docs-replay-lessons.ts";

replayLessons(1);

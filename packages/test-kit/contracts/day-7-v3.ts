// Day 7, v3: one agent-code on the PATH (taught in docs/day-7-path.md). The stage changes how
// agent-code is started, not what a run does: package.json's `bin`, a `#!/usr/bin/env node` first
// line, a global link. A scenario starts the bundle by its path, so it cannot see the difference;
// the stage's own test/bin.test.ts links it in a temporary global folder and runs it by name.
// Every day-7-v2 scenario is carried unchanged and none is added (decision 0084).
import type { Contract } from "../src/contract.ts";
import { day7v2 } from "./day-7-v2.ts";

export const day7v3: Contract = {
  stage: "day-7-v3",
  base: "day-7-v2",
  title: "Day 7 v3: one agent-code on the PATH",
  scenarios: [...day7v2.scenarios],
};

// These tests spawn the stages' bundles: each is rebuilt first when older than its sources, so a
// run of this package alone never judges a stale bundle.
import { ensureStageBundle } from "@agent-code/test-kit/stage-bundle";
import { STAGES, stageDir } from "../lib/command.ts";

export default function setup(): void {
  for (const stage of STAGES) ensureStageBundle(stageDir(stage));
}

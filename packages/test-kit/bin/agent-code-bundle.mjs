#!/usr/bin/env node
// `agent-code-bundle`, the first step of every stage's `test` script: the bundle of the stage in
// the current directory, rebuilt only when older than its sources (src/stage-bundle.mjs).
import { ensureStageBundle } from "../src/stage-bundle.mjs";

try {
  ensureStageBundle(process.cwd());
} catch (error) {
  // esbuild has printed what is wrong with the sources already.
  console.error(`error: cannot build ${process.cwd()}: ${String(error).split("\n")[0]}`);
  process.exitCode = 1;
}

#!/usr/bin/env node
// Runs the TypeScript sources of the `fake-server` command through tsx: the test-kit has no build.
import { register } from "tsx/esm/api";

register();
await import(new URL("../src/server-cli.ts", import.meta.url).href);

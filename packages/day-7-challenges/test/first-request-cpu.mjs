// Loaded with --import before the bundle: at the first request agent-code makes (the SDK calls
// fetch), it writes the CPU time its process has used since it began to stderr. CPU time, unlike
// the wall clock, does not grow when other work keeps the machine busy.
const send = globalThis.fetch;
let told = false;
globalThis.fetch = (...args) => {
  if (!told) {
    told = true;
    const { user, system } = process.cpuUsage();
    process.stderr.write(`first-request-cpu-ms ${Math.round((user + system) / 1000)}\n`);
  }
  return send(...args);
};

// agent-code's command line: reads argv, prints the header and the trace, catches every error.
console.error('agent-code does nothing yet: start with docs/day-1.md, "v1: an echo CLI".');

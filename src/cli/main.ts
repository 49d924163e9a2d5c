// Operators' CLI: `npm run -s cli -- <noun> <verb> [options]` (run.ts; docs/cli.md), as a process: its
// environment, its stdout and stderr, and the command's exit status.
import { processCli } from './open.js';
import { runCli } from './run.js';

runCli(process.argv.slice(2), processCli).then((code) => process.exit(code));

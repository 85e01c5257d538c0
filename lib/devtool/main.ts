// `keel` as a process (dist/cli.js, package.json "bin"): the commands in commands.ts over this
// process's streams, then exit with their code. Exits explicitly: an app module loaded to read
// its routes may hold timers or handles open, and the command is done when its output is.
import { runKeel } from "./commands.js";

const code = await runKeel(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  cwd: process.cwd(),
  env: process.env,
});
// Let buffered pipe output drain before exiting.
process.exitCode = code;
process.stdout.write("", () => process.exit(code));

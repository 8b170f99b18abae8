// The command line's entry: `node out/main/cli.js ...`, the package's bin (bin/radar-console.js
// calls run()), and `tsx src-main/cli.ts ...` from the source tree. The commands live in cli/.
import { main } from './cli/program';

export { main };

/** Runs the command line on this process's arguments and exits with its code. */
export function run(argv: string[] = process.argv.slice(2)): void {
  // A reader that has seen enough (`radar-console export ... | head`) closes the pipe: stop
  // quietly, as other command-line tools do, instead of failing on the next write.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(0);
      throw e;
    });
  }
  main(argv).then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`radar-console: ${(e as Error)?.stack ?? String(e)}\n`);
      process.exit(1);
    },
  );
}

if (typeof require !== 'undefined' && require.main === module) run();

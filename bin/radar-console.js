#!/usr/bin/env node
// The package's command. It runs the built command line (out/main/cli.js, made by
// `npm run build` and shipped in the package).
const path = require('node:path');
const fs = require('node:fs');
const cli = path.join(__dirname, '..', 'out', 'main', 'cli.js');
if (!fs.existsSync(cli)) {
  process.stderr.write(`radar-console: ${cli} is missing; run \`npm run build\` in ${path.join(__dirname, '..')}\n`);
  process.exit(1);
}
require(cli).run(process.argv.slice(2));

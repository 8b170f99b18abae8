#!/usr/bin/env node
// The package's command: runs the built CLI (npm run build makes out/main/cli.js).
const path = require('node:path');
const fs = require('node:fs');
const cli = path.join(__dirname, '..', 'out', 'main', 'cli.js');
if (!fs.existsSync(cli)) {
  process.stderr.write('radar-console: not built yet; run `npm run build` in ' + path.join(__dirname, '..') + '\n');
  process.exit(1);
}
require(cli);

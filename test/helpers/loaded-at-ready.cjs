// Preloaded into `serve` (node --require): when the ready line is written, writes the files the
// process has loaded so far, one a line, to the file named by RADAR_LOADED_AT_READY.
const fs = require('node:fs');
const out = process.env.RADAR_LOADED_AT_READY;
const write = process.stdout.write.bind(process.stdout);
let done = false;
process.stdout.write = function (chunk, ...rest) {
  if (!done && out && String(chunk).startsWith('radar-console ready ')) {
    done = true;
    fs.writeFileSync(out, `${Object.keys(require.cache).join('\n')}\n`);
  }
  return write(chunk, ...rest);
};

#!/usr/bin/env node
// Installed entry of the headless CLI (`device-bridge`, `npx device-bridge`, npm scripts):
// hands the command line to run() of the compiled dist/main/cli.js (built by `npm run build`).
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const compiled = join(root, 'dist', 'main', 'cli.js');
if (!existsSync(compiled)) {
  process.stderr.write(
    `device-bridge: not built yet (${compiled} is missing); run \`npm run build\` in ${root} first\n`,
  );
  process.exit(1);
}
let cli;
try {
  cli = require(compiled);
} catch (error) {
  // A dependency missing from node_modules, not our code: say so in one line.
  if (!error || error.code !== 'MODULE_NOT_FOUND') throw error;
  const reason = String(error.message).split('\n')[0];
  process.stderr.write(`device-bridge: ${reason}; run \`npm install\` and \`npm run build\` in ${root}\n`);
  process.exit(1);
}
if (typeof cli.run !== 'function') {
  process.stderr.write(`device-bridge: ${compiled} is from an older build; run \`npm run build\` in ${root} again\n`);
  process.exit(1);
}
void cli.run(process.argv.slice(2));

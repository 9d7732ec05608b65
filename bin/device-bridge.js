#!/usr/bin/env node
// Installed entry of the headless CLI: runs the compiled dist/main/cli.js (built by `npm run build`).
require('../dist/main/cli.js');

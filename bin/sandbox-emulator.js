#!/usr/bin/env node
"use strict";
// The emulator's command line; the code is compiled to dist/ by `npm run build`.
require("../dist/emulator/cli.js").main();

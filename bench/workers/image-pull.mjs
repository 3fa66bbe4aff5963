// Worker of the image bench: one `pullImage` in a process of its own, so that its peak RSS (maxRSS)
// is the pull's alone. Prints wall time and peak RSS as one JSON line.
import { join } from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
// pullImage is not in the package's exports (the emulator calls it inside), so the compiled file is loaded by path.
const { pullImage } = require(join(import.meta.dirname, "..", "..", "dist", "emulator", "image", "pull.js"));
const { ref, target, cacheDir } = JSON.parse(process.argv[2]);

const t0 = performance.now();
const { digest } = await pullImage(ref, target, { cacheDir, insecure: true });
const ms = performance.now() - t0;
console.log(JSON.stringify({ ms, digest, maxRssKb: process.resourceUsage().maxRSS }));

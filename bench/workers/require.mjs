// Worker of bench 5: times one `require(id)` in this fresh process, resolved from the project `dir`
// (as the program and the provider host resolve it). With `after`, those are required first, untimed:
// what `id` adds to them. With `ownCode`, also sums the bytes of the package's own JavaScript files
// that the require loaded.
import { statSync } from "node:fs";
import { createRequire } from "node:module";
import { join, sep } from "node:path";

const { dir, id, ownCode, after = [] } = JSON.parse(process.argv[2]);
const require = createRequire(join(dir, "package.json"));
for (const first of after) require(first);
const before = Object.keys(require.cache).length;
const t0 = performance.now();
require(id);
const ms = performance.now() - t0;
const files = Object.keys(require.cache);
const own = join(dir, "node_modules", ownCode ?? "\0", sep);
const ownBytes = files.filter((f) => f.startsWith(own) && !f.slice(own.length).includes("node_modules")).reduce((sum, f) => sum + statSync(f).size, 0);
console.log(JSON.stringify({ ms, modules: files.length, added: files.length - before, ownBytes }));

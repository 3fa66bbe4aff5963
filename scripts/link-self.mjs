#!/usr/bin/env node
// Makes `pulumi-sandbox` resolvable by name inside this repository (node_modules/pulumi-sandbox -> ..),
// exactly as it is in a user's project. The serialized provider loads its code with
// `require("pulumi-sandbox/runtime")` from the project dir, so the examples and the e2e tests need it.
import { lstatSync, mkdirSync, readlinkSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const link = join(root, "node_modules", "pulumi-sandbox");
mkdirSync(join(root, "node_modules"), { recursive: true });
let current;
try {
  current = lstatSync(link).isSymbolicLink() ? readlinkSync(link) : "not a link";
} catch {
  current = undefined;
}
if (current !== "..") {
  if (current !== undefined) rmSync(link, { recursive: true, force: true });
  symlinkSync("..", link, "dir");
}

/**
 * The provider text Pulumi stores in the state of every resource (`__provider`, in its inputs and its
 * outputs). The dynamic-provider host loads it with `require-from-string` and calls its `handler()`
 * for the provider object, once per distinct text. Written here by hand rather than produced by
 * Pulumi's closure serializer: the text is one line that loads the runtime by package name
 * (`require("pulumi-sandbox/runtime")`, resolved from the project's node_modules), so it is ~90 bytes
 * instead of ~2.4 KB, holds no credential or live object, is the same on every machine and run, and
 * does not change when the package is upgraded; and the program never runs the serializer (which
 * walks closures through the V8 inspector).
 *
 * State written by 0.1.0 holds the serializer's text of the same handle, whose methods call
 * `configure`, `check`, ... `remove` of the runtime with the kind first: the runtime keeps serving
 * those (test/e2e/upgrade.test.ts).
 */
import type { ResourceKind } from "./kinds";

export function providerText(kind: ResourceKind): string {
  return `exports.handler = () => require("pulumi-sandbox/runtime").provider(${JSON.stringify(kind)});\n`;
}

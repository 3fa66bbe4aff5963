/**
 * A program-side guard: Pulumi's Node.js SDK turns every value it registers into a string for its own
 * labels, and a plain object with its own `toString` that is not a function (a map keyed "toString":
 * `members: { toString: {} }`, `envVars: { toString: "x" }`) cannot be turned into one. The SDK then
 * fails with "Cannot convert object to primitive value" and no word of which resource or field; the
 * engine never gets the resource. So the class refuses such a map first, naming the field and the fix.
 * Other languages' SDKs take the key; only a Node.js program cannot.
 */

/** The path of the first plain object under `value` with an own `toString` that is not a function. */
function unprintableAt(value: unknown, path: string): string | undefined {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = unprintableAt(item, `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value === null || typeof value !== "object") return undefined;
  const proto = Object.getPrototypeOf(value);
  // An Output, a Promise, an Asset: Pulumi's own, and not the program's map.
  if (proto !== Object.prototype && proto !== null) return undefined;
  if (Object.hasOwn(value, "toString") && typeof (value as { toString: unknown }).toString !== "function") return path;
  for (const [key, inner] of Object.entries(value)) {
    const found = unprintableAt(inner, path ? `${path}.${key}` : key);
    if (found) return found;
  }
  return undefined;
}

/** @throws Error naming the field, when `args` hold a map Pulumi's Node.js SDK cannot register. */
export function assertPrintable(kind: string, name: string, args: object): void {
  const at = unprintableAt(args, "");
  if (at === undefined) return;
  throw new Error(
    `${kind} "${name}": ${at} has a key "toString", which Pulumi's Node.js SDK cannot register (it fails with ` +
    `"Cannot convert object to primitive value"); name it otherwise (Python, Go and YAML programs can use it)`,
  );
}

/**
 * The provider text Pulumi stores in every resource's state (twice: inputs and outputs): one line that
 * loads the runtime by package name and names the kind, so it is tiny, holds nothing of this machine or
 * its credentials, and stays the same across upgrades. The host runs it with `require-from-string`;
 * here it runs the same way, with `require("pulumi-sandbox/runtime")` answered by the runtime's source.
 */
import { describe, expect, test } from "vitest";
import { providerText } from "../../provider/handle";
import * as runtime from "../../provider/runtime/index";
import type { ResourceKind } from "../../provider/kinds";

const METHODS = ["configure", "check", "diff", "create", "read", "update", "delete"];

/** What `requireFromString(text).handler()` gives the host, with the package resolved to the source. */
function load(text: string): unknown {
  const module = { exports: {} as { handler?: () => unknown } };
  const require = (id: string) => {
    if (id !== "pulumi-sandbox/runtime") throw new Error(`the provider text requires ${id}`);
    return runtime;
  };
  new Function("exports", "require", "module", text)(module.exports, require, module);
  if (typeof module.exports.handler !== "function") throw new Error("the provider text exports no handler");
  return module.exports.handler();
}

describe.each(["Volume", "Template", "Sandbox"] satisfies ResourceKind[])("%s", (kind) => {
  test("the text is one line that loads the runtime by package name and passes only the kind", () => {
    expect(providerText(kind)).toBe(`exports.handler = () => require("pulumi-sandbox/runtime").provider("${kind}");\n`);
  });

  test("its handler is the runtime's provider of that kind, one object per kind, with every method the host calls", () => {
    const provider = load(providerText(kind)) as Record<string, unknown>;
    expect(provider).toBe(runtime.provider(kind));
    expect(Object.keys(provider).sort()).toEqual([...METHODS].sort());
    for (const method of METHODS) expect(typeof provider[method]).toBe("function");
  });

  test("check through it is the check of that kind", async () => {
    const provider = load(providerText(kind)) as { check(olds: object, news: object): Promise<{ failures?: { reason: string }[] }> };
    const { failures } = await provider.check({}, { nonsense: 1 });
    expect(failures?.[0]?.reason).toMatch(new RegExp(`^nonsense: unknown property of ${kind}; valid properties are: `));
  });
});

/**
 * The last net under every answer that becomes state (provider/runtime/secret-net.ts), as both front
 * ends use it: a copy of a program secret in a field no spec list names (a fleet's `__memberInputs`,
 * a member's `urls` by a secret port) is wrapped where it is, at the finest level a value can be.
 */
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { expect, test } from "vitest";
import { fromRuntime, toRuntime } from "../../provider/plugin/adapter";
import { wrapAnswer } from "../../provider/runtime/secrets";

type Obj = Record<string, unknown>;
const TOKEN = "net-token-6b1e9d4f";
const PORT = 41873;
const wrap = (value: unknown) => ({ [specialSigKey]: specialSecretSig, value });

/** A fleet's state after a failed change of member ada: its old inputs kept in a field of the provider's own. */
const fleetState = (): Obj => ({
  sandbox: { templateID: "base" },
  members: { ada: {}, bob: {} },
  sandboxes: {
    ada: { sandboxID: "sbx-ada", urls: { [String(PORT)]: `https://${PORT}-sbx-ada.example` } },
    bob: { sandboxID: "sbx-bob" },
  },
  ready: 2,
  __memberInputs: { ada: { templateID: "base", ports: [PORT], envVars: { TOKEN, MODE: "plain" }, provision: { commands: [{ command: `curl -H "t: ${TOKEN}" x` }] } } },
  __provider: `provider text naming ${TOKEN} by chance`,
});

/** What the net must make of `fleetState()`: each copy wrapped where it is, all else as it was. */
const netted = (): Obj => ({
  sandbox: { templateID: "base" },
  members: { ada: {}, bob: {} },
  sandboxes: {
    // A map keyed by a secret port cannot hide its key: it is wrapped whole.
    ada: { sandboxID: "sbx-ada", urls: wrap({ [String(PORT)]: `https://${PORT}-sbx-ada.example` }) },
    bob: { sandboxID: "sbx-bob" },
  },
  ready: 2,
  __memberInputs: { ada: {
    templateID: "base", ports: [wrap(PORT)], envVars: { TOKEN: wrap(TOKEN), MODE: "plain" },
    provision: { commands: [{ command: wrap(`curl -H "t: ${TOKEN}" x`) }] },
  } },
  // The host reads the provider's code from it: never wrapped.
  __provider: `provider text naming ${TOKEN} by chance`,
  __secrets: wrap([TOKEN, PORT]),
});

test("the dynamic provider's answer: each copy of a program secret is wrapped where it is, in internal and public fields", () => {
  const state = { ...fleetState(), __secrets: [TOKEN, PORT] };
  expect(wrapAnswer("SandboxFleet", state, [], state)).toEqual(netted());
});

test("the plugin's answer: the same, from the secrets of the request it answers", () => {
  const request = toRuntime({ sandbox: { templateID: "base", envVars: { TOKEN: wrap(TOKEN) }, ports: [wrap(PORT)] } }, true);
  const { __secrets: _carried, ...expected } = netted();
  const answer = fromRuntime("SandboxFleet", fleetState(), request);
  // `sandbox` came with a secret inside: the plugin knows that key, and wraps it whole (as before the net).
  expect({ ...answer, __secrets: undefined }).toEqual({ ...expected, sandbox: wrap({ templateID: "base" }), __secrets: undefined });
  expect(answer.__secrets).toEqual(wrap([TOKEN, PORT]));
});

test("a value already wrapped stays as it is, and an answer without program secrets is left plain", () => {
  const state = { __memberInputs: { ada: { envVars: wrap({ TOKEN }) } }, __secrets: [TOKEN] };
  expect(wrapAnswer("SandboxFleet", state, [], state).__memberInputs).toEqual({ ada: { envVars: wrap({ TOKEN }) } });
  expect(wrapAnswer("SandboxFleet", fleetState(), [], {})).toEqual(fleetState());
});

/**
 * The provider's `check` and the service agree on the rules both encode. The bad-input table of the
 * e2e preview test (test/fixtures/bad-inputs.ts) is fed to `check` and, translated by the provider's
 * own wire maps into the request it would send, to the emulator. Each case is either refused by both,
 * or listed in PROVIDER_ONLY with the reason the service lets it through (the provider is stricter
 * on purpose); the valid args of each kind are accepted by both. So a rule that drifts on either side,
 * or a rule the emulator lacks, fails here naming the case.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { checkInputs } from "../../provider/check";
import { NEW_SANDBOX } from "../../provider/kinds/sandbox/sandbox";
import { BUILD_REQUEST } from "../../provider/kinds/template/template-v1";
import { NEW_VOLUME } from "../../provider/kinds/volume/volume";
import { wireBody } from "../../provider/runtime/wire";
import { underCurrentNames } from "../../provider/spec";
import { SPECS } from "../../provider/kinds";
import { CASES, VALID, type Kind } from "../fixtures/bad-inputs";

const NOT_SENT = "the field never reaches the platform API; check is the only guard";
const IGNORED = "the service ignores fields it does not know; check refuses them so a typo is not silently dropped";

/** Cases the service accepts although `check` refuses them, and why that is right. Keyed by `<kind>: <what>`. */
const PROVIDER_ONLY: Record<string, string> = {
  "Template: Dockerfile without FROM": "the service takes the request and the build fails later; check refuses it before anything is made",
  "Template: buildTimeoutSeconds 0": `the provider's own deadline: ${NOT_SENT}`,
  "Template: unknown top-level property (dockerFile)": IGNORED,
  "Volume: unknown property (sizeGB)": IGNORED,
  "Sandbox: forkFrom with templateID": "a fork is another call (POST /sandboxes/{id}/fork), which takes no template; the create the table sends has one",
  "Sandbox: timeout and timeoutSeconds both": "the service has one field; the two names are the provider's (one deprecated)",
  "Sandbox: envVars name starting with a digit": "the service passes names through; no shell could read the variable",
  "Sandbox: metadata with the reserved prefix": "the prefix marks the provider's own metadata; to the service it is any key",
  "Sandbox: network.allowPublic (unknown nested property)": IGNORED,
  "Sandbox: provision.commands empty": `provisioning runs through the in-sandbox process service: ${NOT_SENT}`,
  "Sandbox: provision command empty": `provisioning: ${NOT_SENT}`,
  "Sandbox: provision command timeoutSeconds 0": `provisioning: ${NOT_SENT}`,
  "Sandbox: provision cwd relative": `provisioning: ${NOT_SENT}`,
  "Sandbox: provision envs name with a '-'": `provisioning: ${NOT_SENT}`,
  "Sandbox: provision command property timeout (unknown)": `provisioning: ${NOT_SENT}`,
  'Sandbox: provision onFailure "ignore"': `provisioning: ${NOT_SENT}`,
  "Sandbox: lifecycle kill contradicting autoPause": "the service has one field (autoPause) for both inputs; the provider refuses two that disagree rather than pick one",
  "Sandbox: pauseMode without state paused": "pauseMode is the body of the pause that state: paused makes; the create never sends it",
};

let emu: Emulator;

beforeAll(async () => {
  emu = await createEmulator({ buildDelayMs: 10 });
  // The volumes the mount cases name, so a refusal is about the rule under test, not a missing volume.
  for (const name of ["v", "w", "vol0", "vol1", "vol2"]) await send("Volume", { name });
});
afterAll(() => emu?.close());

/**
 * The create request the provider would send for `args`, by its own wire maps (fields it never sends
 * left out), and the service's status. A Volume without a name gets one, as `check` would auto-name it.
 */
async function send(kind: Kind, given: Record<string, unknown>): Promise<number> {
  const args = underCurrentNames(SPECS[kind], given);
  const request = {
    Template: { path: "/templates", body: wireBody(BUILD_REQUEST, args as never) },
    Volume: { path: "/volumes", body: { name: `auto-${Math.random().toString(36).slice(2, 10)}`, ...wireBody(NEW_VOLUME, args as never) } },
    Sandbox: { path: "/sandboxes", body: wireBody(NEW_SANDBOX, args as never) },
  }[kind];
  const res = await fetch(emu.apiUrl + request.path, {
    method: "POST",
    headers: { "x-api-key": emu.apiKey, authorization: `Bearer ${emu.accessToken}`, "content-type": "application/json" },
    body: JSON.stringify(request.body),
  });
  await res.arrayBuffer();
  return res.status;
}

const refusedByCheck = (kind: Kind, args: Record<string, unknown>) => (checkInputs(SPECS[kind], {}, args).failures ?? []).length > 0;

describe("check and the service, on the same inputs", () => {
  test("every provider-only case names a case of the table", () => {
    const names = CASES.map((c) => `${c.kind}: ${c.what}`);
    expect(Object.keys(PROVIDER_ONLY).filter((name) => !names.includes(name))).toEqual([]);
  });

  test.each(CASES.map((c) => [`${c.kind}: ${c.what}`, c] as const))("%s", async (name, c) => {
    expect(refusedByCheck(c.kind, c.args)).toBe(true);
    const status = await send(c.kind, c.args);
    if (PROVIDER_ONLY[name]) expect(status, `the service now refuses it (${status}): remove it from PROVIDER_ONLY`).toBeLessThan(300);
    else expect(status, `check refuses it, the service answered ${status}`).toBe(400);
  });

  test.each(Object.entries(VALID) as [Kind, Record<string, unknown>][])("%s: the valid args pass both", async (kind, args) => {
    expect(refusedByCheck(kind, args)).toBe(false);
    const status = await send(kind, kind === "Volume" ? { name: "valid-control" } : args);
    expect(status, `${kind} answered ${status}`).toBeGreaterThanOrEqual(200);
    expect(status).toBeLessThan(300);
  });
});

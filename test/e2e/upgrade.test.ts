/**
 * Provider upgrade, as pulumi-command's provider-upgrade tests do it: the state an older release wrote
 * (fixtures/upgrade: its README says which release and how it was made) served by HEAD. The service
 * comes back from the snapshot taken with that state, under the same IDs and credentials; the state is
 * imported as it was exported; then what a user runs after upgrading: refresh, preview, up, destroy.
 * Tests share one stack and run in order.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { EmulatorSnapshot } from "../../emulator";
import { callsSince, inventoryOfStack, lastSeq, ROOT, startStack, type E2eStack } from "./harness";

const FIXTURE = join(ROOT, "test", "e2e", "fixtures", "upgrade");
const fixtureFile = <T>(name: string): T => JSON.parse(readFileSync(join(FIXTURE, name), "utf8")) as T;
const meta = fixtureFile<{ commit: string; version: string; stack: string; apiKey: string; accessToken: string }>("fixture.json");
const snapshot = fixtureFile<EmulatorSnapshot>("emulator-snapshot.json");
/** The secret env var of index.js: encrypted in the old state, it must stay out of everything HEAD writes. */
const SECRET_ENV = "upgrade-fixture-token-5b21c7";

let s: E2eStack;

beforeAll(async () => {
  s = await startStack(FIXTURE, meta.stack, { restore: snapshot, apiKey: meta.apiKey, accessToken: meta.accessToken });
  s.secret(SECRET_ENV, "the fixture's API_TOKEN env var");
  await s.ok("stack", "import", "--file", movedTo(s.emulator.apiUrl));
}, 300_000);

afterAll(async () => {
  await s?.close();
  rmSync(scratch, { recursive: true, force: true });
}, 300_000);

const scratch = mkdtempSync(join(tmpdir(), "pulumi-sandbox-upgrade-"));

/**
 * The fixture's deployment with the service at `url`. Refresh and destroy talk to the endpoints the
 * state's default provider recorded, not to the stack's config; the emulator that wrote the state
 * listened on another port, while a user's service stays where it was. Only those two inputs change.
 */
function movedTo(url: string): string {
  const exported = fixtureFile<{ deployment: { resources: { type: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown> }[] } }>("deployment.json");
  for (const r of exported.deployment.resources.filter((r) => r.type === "pulumi:providers:pulumi-nodejs")) {
    for (const props of [r.inputs, r.outputs]) {
      if (props && "sandbox:apiUrl" in props) Object.assign(props, { "sandbox:apiUrl": url, "sandbox:sandboxUrl": url });
    }
  }
  const file = join(scratch, "deployment.json");
  writeFileSync(file, JSON.stringify(exported));
  return file;
}

/** The IDs of the service's objects the fixture's state holds: the emulator must still hold each. */
const fixtureIDs = {
  templates: snapshot.templates.map((t) => t.templateID).sort(),
  volumes: snapshot.volumes.map((v) => v.volumeID).sort(),
  sandboxes: snapshot.sandboxes.map((x) => x.sandboxID).sort(),
};

function heldIDs() {
  const inv = inventoryOfStack(s.emulator);
  return {
    templates: inv.templates.map((t) => t.templateID).sort(),
    volumes: inv.volumes.map((v) => v.volumeID).sort(),
    sandboxes: inv.sandboxes.map((x) => x.sandboxID).sort(),
  };
}

interface Step {
  op: string;
  urn: string;
  diffReasons?: string[];
  replaceReasons?: string[];
  detailedDiff?: Record<string, { kind: string }>;
  oldState?: { inputs?: Record<string, unknown> };
  newState?: { inputs?: Record<string, unknown> };
}

/**
 * Each step of `pulumi preview --json` that is not `same`, as lines a maintainer can act on: the op, the
 * resource, the properties the provider named as the reason (replaceReasons, diffReasons; the CLI gives
 * no detailedDiff for dynamic providers) with their old and new input, and the other inputs that differ
 * (internal ones such as __resource included). Secrets show as "[secret]": the CLI masks them.
 */
function describeChanges(steps: Step[]): string[] {
  const show = (v: unknown) => (v === undefined ? "(none)" : JSON.stringify(v));
  return steps.filter((st) => st.op !== "same").map((st) => {
    const [olds, news] = [st.oldState?.inputs ?? {}, st.newState?.inputs ?? {}];
    const differ = [...new Set([...Object.keys(olds), ...Object.keys(news)])].filter((k) => show(olds[k]) !== show(news[k])).sort();
    const named = [...new Set([...(st.replaceReasons ?? []), ...(st.diffReasons ?? []), ...Object.keys(st.detailedDiff ?? {})])];
    const lines = (named.length ? named : differ).map((key) => `    ${key}: ${show(olds[key])} => ${show(news[key])}`);
    const others = differ.filter((k) => !named.includes(k));
    if (named.length && others.length) lines.push(`    other inputs that differ: ${others.map((k) => `${k}: ${show(olds[k])} => ${show(news[k])}`).join("; ")}`);
    const type = st.urn.split("::")[2];
    const why = st.replaceReasons?.length ? ` (replace because of ${st.replaceReasons.join(", ")})` : "";
    return [`  ${st.op} ${type} ${st.urn.slice(st.urn.lastIndexOf("::") + 2)}${why}`, ...lines].join("\n");
  });
}

describe(`state written by ${meta.version} (${meta.commit.slice(0, 7)}), served by HEAD`, () => {
  test("the imported state names exactly what the restored service holds", async () => {
    expect(heldIDs()).toEqual(fixtureIDs);
    const state = JSON.parse(await s.exported()) as { deployment: { resources: { id?: string; type: string }[] } };
    const inState = state.deployment.resources.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic")).map((r) => r.id).sort();
    expect(inState).toEqual([...fixtureIDs.templates, ...fixtureIDs.volumes, ...fixtureIDs.sandboxes].sort());
  });

  test("refresh succeeds and deletes nothing: every resource is still found", async () => {
    const refresh = await s.ok("refresh", "--yes", "--skip-preview");
    expect(refresh.output).not.toMatch(/deleted/);
    expect(heldIDs()).toEqual(fixtureIDs);
  });

  test("preview --expect-no-changes: HEAD plans nothing for the old state", async () => {
    const preview = await s.pulumi("preview", "--expect-no-changes", "--json");
    let steps: Step[] = [];
    try {
      steps = (JSON.parse(preview.stdout) as { steps?: Step[] }).steps ?? [];
    } catch {
      throw new Error(`pulumi preview --json printed no plan (exit ${preview.code}):\n${preview.output}`);
    }
    const changes = describeChanges(steps);
    const why = `HEAD would change the state ${meta.version} wrote:\n${changes.join("\n")}\n\n${preview.output.slice(preview.stdout.length)}`; // output is stdout + stderr
    expect(changes, why).toEqual([]);
    expect(preview.code, why).toBe(0);
  });

  test("up changes nothing and sends the service no change", async () => {
    const since = lastSeq(s.emulator);
    const up = await s.ok("up", "--yes", "--skip-preview");
    expect(up.output).not.toMatch(/created|updated|replaced|deleted/);
    expect(callsSince(s.emulator, since).filter((c) => !c.startsWith("GET"))).toEqual([]);
    expect(heldIDs()).toEqual(fixtureIDs);
  });

  test("destroy removes everything the old release made", async () => {
    await s.ok("destroy", "--yes", "--skip-preview");
    expect(inventoryOfStack(s.emulator)).toEqual({ sandboxes: [], volumes: [], templates: [] });
  });
});

/**
 * State written by older versions. The serialized provider loads the installed runtime by name, so new
 * code serves state that old code wrote: every stored shape is brought up to date here, in one place,
 * before any method reads it, and every result records the version that wrote it (`__version`).
 */
import { versionOlder } from "../../sdk/node-version";
import { underCurrentNames, type ResourceKind } from "../spec";
import { SPECS } from "../kinds";
import { PlanError, planBuild } from "../kinds/template/steps";
import type { Outputs } from "./handlers";

/** The version of this package, as recorded in state. */
export const VERSION: string = (require("pulumi-sandbox/package.json") as { version: string }).version;

interface Migration {
  kind: ResourceKind;
  /** Applies to state written by versions before this one (or by one that recorded no version). */
  before: string;
  why: string;
  up(state: Outputs): Outputs;
}

const MIGRATIONS: readonly Migration[] = [
  {
    kind: "Volume",
    before: "0.2.0",
    why: "the volume's ID output is `volumeID` (like sandboxID and templateID); `volumeId` stays for one release",
    up: (s) => (s.volumeID === undefined && typeof s.volumeId === "string" ? { ...s, volumeID: s.volumeId } : s),
  },
  {
    kind: "Template",
    before: "0.3.0",
    why:
      "a template's build steps (`buildSteps`) are derived from its Dockerfile and diffed; state from before has none. " +
      "Its builds read no context, so the steps are the Dockerfile's alone: the same Dockerfile is then no change",
    up: (s) => (s.buildSteps !== undefined || typeof s.dockerfile !== "string" ? s : withSteps(s, s.dockerfile)),
  },
];

function withSteps(state: Outputs, dockerfile: string): Outputs {
  try {
    return { ...state, buildSteps: planBuild({ dockerfile }, false).lines };
  } catch (err) {
    if (err instanceof PlanError) return state; // a Dockerfile only the v1 builder reads: compared as text
    throw err;
  }
}

/**
 * Stored state (outputs, or the old inputs `check` sees) in today's shape: the migrations of the
 * versions since it was written, then each deprecated input name read as its current one.
 */
export function migrate(kind: ResourceKind, state: Outputs): Outputs {
  const written = typeof state.__version === "string" ? state.__version : "0.0.0";
  const migrated = MIGRATIONS.filter((m) => m.kind === kind && versionOlder(written, m.before)).reduce((s, m) => m.up(s), state);
  return underCurrentNames(SPECS[kind], migrated);
}

/**
 * Outputs as state keeps them: stamped with the version that wrote them, and each deprecated input
 * name echoing its current one, so a program that still reads `sandbox.timeout` gets the value.
 */
export function stamped(kind: ResourceKind, outs: Outputs): Outputs {
  const echoes = Object.entries(SPECS[kind].renamed ?? {}).filter(([, current]) => outs[current] !== undefined);
  return { ...outs, ...Object.fromEntries(echoes.map(([old, current]) => [old, outs[current]])), __version: VERSION };
}

/**
 * State written by older versions. The serialized provider loads the installed runtime by name, so new
 * code serves state that old code wrote: every stored shape is brought up to date here, in one place,
 * before any method reads it, and every result records the version that wrote it (`__version`). Each
 * kind's migrations are in its folder (../kinds/<kind>/migrations.ts).
 */
import { versionOlder } from "../../sdk/node-version";
import { underCurrentNames } from "../spec";
import { definitionOf, SPECS, type ResourceKind } from "../kinds";
import type { Outputs } from "./handlers";

/** The version of this package, as recorded in state. */
export const VERSION: string = (require("pulumi-sandbox/package.json") as { version: string }).version;

/**
 * Stored state (outputs, or the old inputs `check` sees) in today's shape: the migrations of the
 * versions since it was written, then each deprecated input name read as its current one.
 */
export function migrate(kind: ResourceKind, state: Outputs): Outputs {
  const written = typeof state.__version === "string" ? state.__version : "0.0.0";
  const migrations = definitionOf(kind).migrations ?? [];
  const migrated = migrations.filter((m) => versionOlder(written, m.before)).reduce((s, m) => m.up(s), state);
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

/**
 * `pulumi import` of a fleet (the plugin's Read with no state). A fleet has no object of its own in the
 * service, so its import ID names each member's sandbox: `<key>=<sandboxID>,<key>=<sandboxID>`. Each
 * sandbox is read as a Sandbox's import reads one (../sandbox/import.ts): its template by the alias a
 * program names it by, the life it was given, its metadata. What every member has alike becomes the
 * fleet's `sandbox`, what one has of its own its entry in `members`, so the program to declare it is the
 * one a person would write. What the service cannot give back (envVars, provisioning) is not recorded,
 * as for a Sandbox.
 */
import type { SandboxDetail } from "../../../sdk/schemas/sandboxes";
import { platform } from "../../runtime/context";
import { isNotFound } from "../../runtime/handlers";
import { sameValue } from "../../spec";
import { withoutMarkings } from "../sandbox/adoption";
import { sandboxAsWritten } from "../sandbox/import";
import { isReady, memberKeys, type FleetState, type MemberEntry } from "./members";
import { MemberKey } from "./spec";

type Obj = Record<string, unknown>;

const FORM = "`<key>=<sandboxID>,<key>=<sandboxID>` (each member's key and its sandbox's ID), e.g. `pulumi import sandbox:index:SandboxFleet pool \"ada=i1a2b3,bob=i4c5d6\"`";

/** The members an import ID names, by key. @throws Error naming what is wrong and the form to use. */
export function membersOfImportID(id: string): Map<string, string> {
  const members = new Map<string, string>();
  for (const part of id.split(",").map((p) => p.trim()).filter(Boolean)) {
    const [key = "", sandboxID = "", ...rest] = part.split("=");
    const why = !MemberKey.safeParse(key).success ? `"${key}" is no member key` : !sandboxID || rest.length ? `"${part}" is not <key>=<sandboxID>` : members.has(key) ? `"${key}" is named twice` : undefined;
    if (why) throw new Error(`SandboxFleet: cannot import "${id}": ${why}. Import a fleet by ${FORM}`);
    members.set(key, sandboxID);
  }
  if (members.size === 0) throw new Error(`SandboxFleet: cannot import "${id}": it names no member. Import a fleet by ${FORM}`);
  return members;
}

/** A member's sandbox as a program would declare it. */
function writtenOf(detail: SandboxDetail): Obj {
  const written: Obj = { ...sandboxAsWritten(detail as unknown as Obj), metadata: withoutMarkings(detail.metadata) };
  return Object.fromEntries(Object.entries(written).filter(([, v]) => v !== undefined));
}

/** The inputs every member has alike (`sandbox`), and each member's own (`members`). */
function split(written: ReadonlyMap<string, Obj>): { sandbox: Obj; members: Record<string, Obj> } {
  const all = [...written.values()];
  const fields = [...new Set(all.flatMap((w) => Object.keys(w)))];
  const sandbox = Object.fromEntries(fields.filter((f) => all.every((w) => sameValue(w[f], all[0]![f]))).map((f) => [f, all[0]![f]]));
  const members = Object.fromEntries([...written].map(([key, w]) => [key, Object.fromEntries(Object.entries(w).filter(([f]) => !(f in sandbox)))]));
  return { sandbox, members };
}

/** What state keeps of an imported member: it runs as it was made, its provisioning (none known) done. */
function entryOf(detail: SandboxDetail): MemberEntry {
  const entry: MemberEntry = { sandboxID: detail.sandboxID, state: detail.state, provisioned: true };
  if (typeof detail.envdAccessToken === "string") entry.envdAccessToken = detail.envdAccessToken;
  return entry;
}

/** The fleet the import ID `id` names, read from the service. */
export async function importFleet(id: string): Promise<{ id: string; props: FleetState }> {
  const named = membersOfImportID(id);
  const details = new Map<string, SandboxDetail>();
  await Promise.all([...named].map(async ([key, sandboxID]) => {
    try {
      details.set(key, await platform().sandboxes.get(sandboxID));
    } catch (err) {
      if (isNotFound(err)) throw new Error(`SandboxFleet: cannot import member "${key}": sandbox ${sandboxID} does not exist (or has ended)`);
      throw err;
    }
  }));
  const ordered = [...named.keys()].map((key) => [key, details.get(key)!] as const);
  const { sandbox, members } = split(new Map(ordered.map(([key, d]) => [key, writtenOf(d)])));
  const props: FleetState = { sandbox, members, sandboxes: Object.fromEntries(ordered.map(([key, d]) => [key, entryOf(d)])) };
  return { id, props: { ...props, ready: (memberKeys(props) ?? []).filter((k) => isReady(props, k)).length } };
}

/**
 * A read-only snapshot of everything the emulator holds, for tests and tooling: the body of
 * GET /_emulator/inventory and of `emulator.state`. Unlike the API it shows paused and running
 * sandboxes alike, with their metadata and host directories, and the built-in template.
 */
import { detailView } from "./routes/sandbox-views";
import { templateView } from "./routes/template-views";
import type { Stores } from "./store";

/** A sandbox as the inventory shows it: its SandboxDetail plus host paths. */
export interface InventorySandbox extends Record<string, unknown> {
  sandboxID: string;
  templateID: string;
  state: "running" | "paused";
  metadata: Record<string, string>;
  /** Host directory standing for the sandbox's `/`. */
  rootDir: string;
}

/** A template as the inventory shows it: its Template record plus every build. */
export interface InventoryTemplate extends Record<string, unknown> {
  templateID: string;
  aliases: string[];
  /** `force`: a v2 build's start asked to bypass the build cache (absent for v1 builds and unstarted ones). */
  builds: { buildID: string; status: string; cpuCount: number; memoryMB: number; startCmd: string | null; readyCmd: string | null; force?: boolean }[];
}

/** A volume as the inventory shows it. */
export interface InventoryVolume {
  volumeID: string;
  name: string;
  /** Host directory holding the volume's content. */
  hostDir: string;
}

/** Everything the emulator holds. */
export interface Inventory {
  sandboxes: InventorySandbox[];
  templates: InventoryTemplate[];
  volumes: InventoryVolume[];
}

/** Every sandbox, running and paused. */
export function sandboxesOf(stores: Stores): InventorySandbox[] {
  return stores.sandboxes.all().map((s) => ({ ...detailView(s), sandboxID: s.sandboxID, templateID: s.templateID, state: s.state, metadata: { ...s.metadata }, rootDir: s.rootDir }));
}

/** Every template, the built-in `base` included. */
export function templatesOf(stores: Stores): InventoryTemplate[] {
  return stores.templates.all().map((t) => ({
    ...templateView(t, stores.userID),
    templateID: t.templateID,
    aliases: [...t.aliases],
    builds: t.builds.map((b) => ({
      buildID: b.buildID, status: b.status, cpuCount: b.cpuCount, memoryMB: b.memoryMB, startCmd: b.startCmd, readyCmd: b.readyCmd,
      ...(b.spec ? { force: b.spec.force } : {}),
    })),
  }));
}

/** Every volume. */
export function volumesOf(stores: Stores): InventoryVolume[] {
  return stores.volumes.all().map((v) => ({ volumeID: v.volumeID, name: v.name, hostDir: v.hostDir }));
}

/** The whole inventory. */
export function inventoryOf(stores: Stores): Inventory {
  return { sandboxes: sandboxesOf(stores), templates: templatesOf(stores), volumes: volumesOf(stores) };
}

/**
 * The resource classes users write in their programs. They run in the Pulumi program, not in the
 * provider host: they only shape the inputs (secrets wrapped, output placeholders, the resource key)
 * and hand Pulumi the serializable handle of ./handle.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import { providerFor } from "./handle";
import { secretValuesOf } from "./secret-values";
import type { ResourceKind, ResourceSpec } from "./spec";
import { sandboxSpec, type SandboxInputs } from "./specs/sandbox";
import { templateSpec, type TemplateInputs } from "./specs/template";
import { volumeSpec, type VolumeInputs } from "./specs/volume";

/** Inputs of a resource: each value (and each nested value) may be a Pulumi Input. */
type DeepInput<T> = pulumi.Input<
  T extends readonly (infer U)[] ? DeepInput<U>[] : T extends Record<string, unknown> ? { [K in keyof T]: DeepInput<T[K]> } : T
>;
type ArgsOf<S extends z.ZodObject> = { [K in keyof z.input<S>]: DeepInput<z.input<S>[K]> };

export type VolumeArgs = ArgsOf<typeof VolumeInputs>;
export type TemplateArgs = ArgsOf<typeof TemplateInputs>;
export type SandboxArgs = ArgsOf<typeof SandboxInputs>;

// One handle per kind: Pulumi caches a provider's serialized text per object.
const handles = new Map<ResourceKind, pulumi.dynamic.ResourceProvider>();
function handle(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  let h = handles.get(kind);
  if (!h) handles.set(kind, (h = providerFor(kind)));
  return h;
}

/** Outputs that are the resource's ID: the class takes them from `id`, which preview knows for an update. */
const ID_OUTPUTS: Record<ResourceKind, string[]> = { Template: ["templateID"], Volume: ["volumeID", "volumeId"], Sandbox: ["sandboxID"] };

/**
 * The key auto-names and markers derive from: the URN this resource will have, so it is unique in the
 * stack (two components may each have a child named "data"). Built from the parent's URN only as a
 * value: depending on the parent would make a component's child depend on its own component.
 */
function resourceKey(kind: ResourceKind, name: string, opts: pulumi.CustomResourceOptions | undefined): pulumi.Output<string> {
  const urn = pulumi.createUrn(name, `pulumi-nodejs:dynamic/sandbox:${kind}`, opts?.parent);
  return pulumi.output(new Promise<string>((resolve) => urn.apply((u) => resolve(u))));
}

/**
 * The props Pulumi registers: the args (secret ones wrapped), the resource key, the plaintext of the
 * values the program marked secret (./secret-values.ts), and every output and input as a placeholder:
 * Pulumi puts on the object only the properties registered, so without them `Sandbox.get(...)` (which
 * has no args) would not show the templateID or metadata the service reports. An `undefined`
 * placeholder is not sent as an input.
 */
function props(spec: ResourceSpec, name: string, args: object, opts: pulumi.CustomResourceOptions | undefined): pulumi.Inputs {
  const out: pulumi.Inputs = {};
  for (const key of [...Object.keys(spec.outputs.shape), ...Object.keys(spec.inputs.shape)]) out[key] = undefined;
  for (const key of ID_OUTPUTS[spec.kind]) delete out[key];
  for (const [key, value] of Object.entries(args)) {
    out[key] = value !== undefined && spec.secretInputs.includes(key) ? pulumi.secret(value) : value;
  }
  out.__resource = resourceKey(spec.kind, name, opts);
  out.__secrets = secretValuesOf(args);
  return out;
}

function options(spec: ResourceSpec, opts: pulumi.CustomResourceOptions | undefined): pulumi.CustomResourceOptions {
  return { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...spec.secretOutputs] };
}

/** A persistent team volume. Replacing or deleting it loses its data: see `protect` and `retainOnDelete`. */
export class Volume extends pulumi.dynamic.Resource {
  /** The resource's ID: known at preview for an update. */
  declare readonly volumeID: pulumi.Output<string>;
  /** @deprecated Use `volumeID`; removed in 0.3. */
  declare readonly volumeId: pulumi.Output<string>;
  declare readonly name: pulumi.Output<string>;
  /** Secret. */
  declare readonly token: pulumi.Output<string>;

  constructor(name: string, args: VolumeArgs = {}, opts?: pulumi.CustomResourceOptions) {
    super(handle("Volume"), name, props(volumeSpec, name, args, opts), options(volumeSpec, opts), "sandbox", "Volume");
    this.volumeID = this.id;
    this.volumeId = this.id;
  }

  /** Reads an existing volume by ID into the program (read-only: Pulumi does not manage it). */
  static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): Volume {
    return new Volume(name, {}, { ...opts, id });
  }
}

/** A sandbox template built from a Dockerfile. */
export class Template extends pulumi.dynamic.Resource {
  /** The resource's ID: known at preview for an update, so sandboxes on it are not shown as replaced. */
  declare readonly templateID: pulumi.Output<string>;
  declare readonly buildID: pulumi.Output<string>;
  declare readonly latestBuildID: pulumi.Output<string>;
  declare readonly buildStatus: pulumi.Output<string>;
  declare readonly public: pulumi.Output<boolean>;
  declare readonly alias: pulumi.Output<string>;
  declare readonly aliases: pulumi.Output<string[]>;
  declare readonly names: pulumi.Output<string[]>;
  declare readonly envdVersion: pulumi.Output<string>;
  declare readonly cpuCount: pulumi.Output<number>;
  declare readonly memoryMB: pulumi.Output<number>;
  declare readonly diskSizeMB: pulumi.Output<number>;
  declare readonly createdAt: pulumi.Output<string>;
  declare readonly updatedAt: pulumi.Output<string>;
  declare readonly buildCount: pulumi.Output<number>;
  declare readonly spawnCount: pulumi.Output<number>;

  constructor(name: string, args: TemplateArgs, opts?: pulumi.CustomResourceOptions) {
    super(handle("Template"), name, props(templateSpec, name, args, opts), options(templateSpec, opts), "sandbox", "Template");
    this.templateID = this.id;
  }

  /** Reads an existing template by ID into the program (read-only). */
  static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): Template {
    return new Template(name, {} as TemplateArgs, { ...opts, id });
  }
}

/** A sandbox from a template, optionally provisioned by commands run inside it. */
export class Sandbox extends pulumi.dynamic.Resource {
  /** The resource's ID: known at preview for an update. */
  declare readonly sandboxID: pulumi.Output<string>;
  declare readonly templateID: pulumi.Output<string>;
  declare readonly alias: pulumi.Output<string | undefined>;
  declare readonly envdVersion: pulumi.Output<string>;
  /** Secret. */
  declare readonly envdAccessToken: pulumi.Output<string | null>;
  /** Secret. */
  declare readonly trafficAccessToken: pulumi.Output<string | null>;
  declare readonly state: pulumi.Output<string>;
  declare readonly startedAt: pulumi.Output<string>;
  declare readonly endAt: pulumi.Output<string>;
  declare readonly cpuCount: pulumi.Output<number>;
  declare readonly memoryMB: pulumi.Output<number>;
  declare readonly diskSizeMB: pulumi.Output<number>;
  declare readonly provisioned: pulumi.Output<boolean>;
  declare readonly provisionResults: pulumi.Output<
    { command: string; exitCode: number; durationMs: number; stdoutTail: string; stderrTail: string }[]
  >;

  constructor(name: string, args: SandboxArgs, opts?: pulumi.CustomResourceOptions) {
    super(handle("Sandbox"), name, props(sandboxSpec, name, args, opts), options(sandboxSpec, opts), "sandbox", "Sandbox");
    this.sandboxID = this.id;
  }

  /** Reads an existing sandbox by ID into the program (read-only). */
  static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): Sandbox {
    return new Sandbox(name, {} as SandboxArgs, { ...opts, id });
  }
}

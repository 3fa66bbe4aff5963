/**
 * The resource classes users write in their programs. They run in the Pulumi program, not in the
 * provider host: they only shape the inputs (secrets wrapped, output placeholders, the resource key)
 * and hand Pulumi the provider text of ./handle.ts. Their argument and output types come from the
 * spec: a field added to a spec appears here with no other edit. At run time they read only the
 * names generated from the specs (./class-shapes.ts): a program that imports `pulumi-sandbox` loads
 * no zod and no schema; the provider host validates.
 */
import * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import { CLASS_SHAPES } from "./class-shapes";
import { ID_OUTPUTS } from "./id-outputs";
import { providerText } from "./handle";
import { resourceKeyOf } from "./resource-key";
import { secretValuesOf } from "./secret-values";
import { shallowStacks } from "./shallow-stacks";
import type { ResourceKind } from "./spec";
import type { SPECS } from "./kinds";
import { stackInstance } from "./stack-instance";

/** Inputs of a resource: each value (and each nested value) may be a Pulumi Input. */
type DeepInput<T> = pulumi.Input<
  T extends readonly (infer U)[] ? DeepInput<U>[] : T extends Record<string, unknown> ? { [K in keyof T]: DeepInput<T[K]> } : T
>;
type ArgsOf<K extends ResourceKind> = { [P in keyof z.input<(typeof SPECS)[K]["inputs"]>]: DeepInput<z.input<(typeof SPECS)[K]["inputs"]>[P]> };

/** What a resource shows: every input echoed back (as `check` filled it), then the spec's outputs. */
type Shown<K extends ResourceKind> = z.output<(typeof SPECS)[K]["inputs"]> & z.output<(typeof SPECS)[K]["outputs"]>;
type OutputsOf<K extends ResourceKind> = { readonly [P in keyof Shown<K>]-?: pulumi.Output<Shown<K>[P]> };

export type VolumeArgs = ArgsOf<"Volume">;
export type TemplateArgs = ArgsOf<"Template">;
export type SandboxArgs = ArgsOf<"Sandbox">;
export type TemplateTagArgs = ArgsOf<"TemplateTag">;

/**
 * The type token `pulumi.dynamic.Resource` gives a resource (module "sandbox"): the engine sends these to
 * the Node.js dynamic-provider host, which runs the provider text in `__provider`. The classes register
 * as plain custom resources with that token, so URNs and state are those of a dynamic resource, and the
 * text is the one of ./handle.ts instead of what Pulumi's serializer would make.
 */
const typeOf = (kind: ResourceKind) => `pulumi-nodejs:dynamic/sandbox:${kind}`;

/**
 * Outputs that are the resource's ID. The class takes them from `id`, which a preview knows for an
 * update; as ordinary outputs they would be unknown then, and everything using them would preview as
 * replaced (a Sandbox on a Template that only changes `public`).
 */
function setIdOutputs(resource: pulumi.CustomResource, kind: ResourceKind): void {
  for (const key of ID_OUTPUTS[kind]) (resource as unknown as Record<string, unknown>)[key] = resource.id;
}

/**
 * The key auto-names and markers derive from (./resource-key.ts): the stack instance, so it is unique
 * among stacks of the same name (./stack-instance.ts), and the URN this resource will have, so it is
 * unique in the stack (two components may each have a child named "data"). Built from the parent's URN
 * only as a value: depending on the parent would make a component's child depend on its own component.
 * `check` uses it only for a resource that state does not hold yet.
 */
function resourceKey(kind: ResourceKind, name: string, opts: pulumi.CustomResourceOptions | undefined): pulumi.Output<string> {
  const urn = pulumi.createUrn(name, typeOf(kind), opts?.parent);
  const key = Promise.all([stackInstance(), new Promise<string>((resolve) => urn.apply(resolve))]).then(([instance, u]) =>
    pulumi.isUnknown(instance) ? pulumi.unknown : resourceKeyOf(instance as string | undefined, u));
  return pulumi.output(key) as pulumi.Output<string>;
}

/**
 * The props Pulumi registers: the args (secret ones wrapped), the resource key, the plaintext of the
 * values the program marked secret (./secret-values.ts), and every output and input as a placeholder:
 * Pulumi puts on the object only the properties registered, so without them `Sandbox.get(...)` (which
 * has no args) would not show the templateID or metadata the service reports. An `undefined`
 * placeholder is not sent as an input.
 */
function props(kind: ResourceKind, name: string, args: object, opts: pulumi.CustomResourceOptions | undefined): pulumi.Inputs {
  const shape = CLASS_SHAPES[kind];
  const out: pulumi.Inputs = {};
  for (const key of [...shape.outputs, ...shape.inputs]) out[key] = undefined;
  for (const key of ID_OUTPUTS[kind]) delete out[key];
  for (const [key, value] of Object.entries(args)) {
    out[key] = value !== undefined && shape.secretInputs.includes(key) ? pulumi.secret(value) : value;
  }
  out.__resource = resourceKey(kind, name, opts);
  out.__secrets = secretValuesOf(args);
  out.__provider = providerText(kind);
  return out;
}

function options(kind: ResourceKind, opts: pulumi.CustomResourceOptions | undefined): pulumi.CustomResourceOptions {
  return { ...opts, additionalSecretOutputs: [...(opts?.additionalSecretOutputs ?? []), ...CLASS_SHAPES[kind].secretOutputs] };
}

// Each class merges with the interface of its outputs (declaration merging), derived from its spec.

/** A persistent team volume. Replacing or deleting it loses its data: see `protect` and `retainOnDelete`. `volumeId` is deprecated (use `volumeID`; removed in 0.3). */
export interface Volume extends OutputsOf<"Volume"> {}
export class Volume extends pulumi.CustomResource {
  constructor(name: string, args: VolumeArgs = {}, opts?: pulumi.CustomResourceOptions) {
    const done = shallowStacks();
    try {
      super(typeOf("Volume"), name, props("Volume", name, args, opts), options("Volume", opts));
    } catch (err) {
      throw done(err);
    } finally {
      done();
    }
    setIdOutputs(this, "Volume");
  }

  /** Reads an existing volume by ID into the program (read-only: Pulumi does not manage it). */
  static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): Volume {
    return new Volume(name, {}, { ...opts, id });
  }
}

/** A sandbox template built from a Dockerfile. */
export interface Template extends OutputsOf<"Template"> {}
export class Template extends pulumi.CustomResource {
  constructor(name: string, args: TemplateArgs, opts?: pulumi.CustomResourceOptions) {
    const done = shallowStacks();
    try {
      super(typeOf("Template"), name, props("Template", name, args, opts), options("Template", opts));
    } catch (err) {
      throw done(err);
    } finally {
      done();
    }
    setIdOutputs(this, "Template");
  }

  /** Reads an existing template by ID into the program (read-only). */
  static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): Template {
    return new Template(name, {} as TemplateArgs, { ...opts, id });
  }
}

/** A sandbox from a template, optionally provisioned by commands run inside it. */
export interface Sandbox extends OutputsOf<"Sandbox"> {}
export class Sandbox extends pulumi.CustomResource {
  constructor(name: string, args: SandboxArgs, opts?: pulumi.CustomResourceOptions) {
    const done = shallowStacks();
    try {
      super(typeOf("Sandbox"), name, props("Sandbox", name, args, opts), options("Sandbox", opts));
    } catch (err) {
      throw done(err);
    } finally {
      done();
    }
    setIdOutputs(this, "Sandbox");
  }

  /** Reads an existing sandbox by ID into the program (read-only). */
  static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): Sandbox {
    return new Sandbox(name, {} as SandboxArgs, { ...opts, id });
  }
}

/** A tag of a template pointed at the build another tag names: roll a tested build forward and back without building. */
export interface TemplateTag extends OutputsOf<"TemplateTag"> {}
export class TemplateTag extends pulumi.CustomResource {
  constructor(name: string, args: TemplateTagArgs, opts?: pulumi.CustomResourceOptions) {
    const done = shallowStacks();
    try {
      super(typeOf("TemplateTag"), name, props("TemplateTag", name, args, opts), options("TemplateTag", opts));
    } catch (err) {
      throw done(err);
    } finally {
      done();
    }
    setIdOutputs(this, "TemplateTag");
  }

  /** Reads an existing tag by ID (`alias:tag`) into the program (read-only). */
  static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): TemplateTag {
    return new TemplateTag(name, {} as TemplateTagArgs, { ...opts, id });
  }
}

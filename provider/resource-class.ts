/**
 * The one resource class every kind's class is made from (the classes themselves are generated into
 * ./classes.ts from the registry). They run in the Pulumi program, not in the provider host: they only
 * shape the inputs (secrets wrapped, output placeholders, the resource key) and hand Pulumi the
 * provider text of ./handle.ts. Their argument and output types come from the spec: a field added to
 * a spec appears on the class with no other edit. At run time they read only the names generated from
 * the specs (./class-shapes.ts): a program that imports `pulumi-sandbox` loads no zod and no schema;
 * the provider host validates.
 */
import * as pulumi from "@pulumi/pulumi";
import type { z } from "zod";
import { CLASS_SHAPES } from "./class-shapes";
import { providerText } from "./handle";
import { assertPrintable } from "./printable-args";
import type { ResourceKind, SPECS } from "./kinds";
import { resourceKeyOf } from "./resource-key";
import { secretValuesOf } from "./secret-values";
import { shallowStacks } from "./shallow-stacks";
import type { CheckedInputs } from "./spec";
import { stackInstance } from "./stack-instance";

/** Inputs of a resource: each value (and each nested value) may be a Pulumi Input. */
type DeepInput<T> = pulumi.Input<
  T extends readonly (infer U)[] ? DeepInput<U>[] : T extends Record<string, unknown> ? { [K in keyof T]: DeepInput<T[K]> } : T
>;
export type ArgsOf<K extends ResourceKind> = { [P in keyof z.input<(typeof SPECS)[K]["inputs"]>]: DeepInput<z.input<(typeof SPECS)[K]["inputs"]>[P]> };

/** What a resource shows: every input echoed back (as `check` filled it), then the spec's outputs. */
type Shown<K extends ResourceKind> = CheckedInputs<(typeof SPECS)[K]> & z.output<(typeof SPECS)[K]["outputs"]>;
export type OutputsOf<K extends ResourceKind> = { readonly [P in keyof Shown<K>]-?: pulumi.Output<Shown<K>[P]> };

/** A kind whose inputs are all optional takes no args (`new Volume("data")`); the others need theirs. */
type Rest<K extends ResourceKind> = {} extends ArgsOf<K>
  ? [args?: ArgsOf<K>, opts?: pulumi.CustomResourceOptions]
  : [args: ArgsOf<K>, opts?: pulumi.CustomResourceOptions];

/** What each generated class extends: a custom resource of kind K, and its `get`. */
export interface ResourceClass<K extends ResourceKind> {
  new (name: string, ...rest: Rest<K>): pulumi.CustomResource;
  /** Reads an existing resource by ID into the program (read-only: Pulumi does not manage it). */
  get<C extends new (name: string, ...rest: Rest<K>) => pulumi.CustomResource>(
    this: C, name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions,
  ): InstanceType<C>;
}

/**
 * The type token `pulumi.dynamic.Resource` gives a resource (module "sandbox"): the engine sends these to
 * the Node.js dynamic-provider host, which runs the provider text in `__provider`. The classes register
 * as plain custom resources with that token, so URNs and state are those of a dynamic resource, and the
 * text is the one of ./handle.ts instead of what Pulumi's serializer would make.
 */
const typeOf = (kind: ResourceKind) => `pulumi-nodejs:dynamic/sandbox:${kind}`;

/** The base class of kind K's class. */
export function resourceClass<K extends ResourceKind>(kind: K): ResourceClass<K> {
  class Resource extends pulumi.CustomResource {
    constructor(name: string, args: object = {}, opts?: pulumi.CustomResourceOptions) {
      assertPrintable(kind, name, args);
      const done = shallowStacks(Resource);
      try {
        super(typeOf(kind), name, props(kind, name, args, opts), options(kind, opts));
      } catch (err) {
        throw done(err);
      } finally {
        done();
      }
      setIdOutputs(this, kind);
    }

    static get(name: string, id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): pulumi.CustomResource {
      return new this(name, {}, { ...opts, id });
    }
  }
  return Resource as unknown as ResourceClass<K>;
}

/**
 * Outputs that are the resource's ID (the spec's `idOutputs`). The class takes them from `id`, which a
 * preview knows for an update; as ordinary outputs they would be unknown then, and everything using
 * them would preview as replaced (a Sandbox on a Template that only changes `public`).
 */
function setIdOutputs(resource: pulumi.CustomResource, kind: ResourceKind): void {
  for (const key of CLASS_SHAPES[kind].idOutputs) (resource as unknown as Record<string, unknown>)[key] = resource.id;
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
  const provider = opts?.provider as pulumi.ProviderResource | undefined;
  const key = Promise.all([stackInstance(provider), new Promise<string>((resolve) => urn.apply(resolve))]).then(([instance, u]) =>
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
  for (const key of shape.idOutputs) delete out[key];
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

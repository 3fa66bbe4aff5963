/**
 * The provider object Pulumi serializes into the state of every resource. It holds nothing but the
 * resource kind: each method loads the real code by package name in the provider host
 * (`require("pulumi-sandbox/runtime")`, resolved from the project's node_modules), so the stored text
 * is about a kilobyte, holds no credential or live object, and does not change when the package is
 * upgraded (a changed text would make the engine see every resource as changed).
 */
import type * as pulumi from "@pulumi/pulumi";
import type { ResourceKind } from "./spec";

type Runtime = typeof import("./runtime/index");

export function providerFor(kind: ResourceKind): pulumi.dynamic.ResourceProvider {
  // A function, not a module-level import: the serializer must see a call by name, not capture a module.
  const load = (): Runtime => require("pulumi-sandbox/runtime");
  return {
    configure: async (req) => load().configure(req),
    check: (olds, news) => load().check(kind, olds, news),
    diff: (id, olds, news) => load().diff(kind, id, olds, news),
    create: (inputs) => load().create(kind, inputs),
    read: (id, props) => load().read(kind, id, props),
    update: (id, olds, news) => load().update(kind, id, olds, news),
    delete: (id, props) => load().remove(kind, id, props),
  };
}

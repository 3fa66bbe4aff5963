/** The TemplateTag kind: a tag pointed at the build another tag names (./spec.ts has the map of calls). */
import { defineKind, type KindDefinition } from "../kind";
import { templateTagSpec } from "./spec";

export const templateTagKind: KindDefinition<typeof templateTagSpec> = defineKind({
  spec: templateTagSpec,
  handlers: async () => (await import("./template-tag.js")).templateTagHandlers,
});

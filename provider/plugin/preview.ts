/**
 * The plugin's answers to a Create or Update the engine sends during `pulumi preview` (the plugin
 * says it supports previews at Configure). Without that, the engine takes an updated resource's
 * outputs to be its new inputs, so an ID output (a Template's `templateID`) is unknown in the plan;
 * a Sandbox built from it would then plan a replacement that `up` never makes. Nothing is called:
 *   create  the inputs, as the engine would have taken them;
 *   update  the inputs, with the ID outputs known (the resource keeps its ID: every replacement is
 *           planned by Diff, not here); every other output stays unknown until `up`.
 */
import { SPECS } from "../kinds";
import { kindOf } from "./adapter";

interface Struct {
  toJavaScript(): Record<string, unknown>;
}
interface StructClass {
  fromJavaScript(value: Record<string, unknown>): Struct;
}
/** The request fields read here; the engine sets `preview` on both. */
export interface PreviewRequest {
  getPreview?(): boolean;
  getUrn(): string;
  getId?(): string;
  getProperties?(): Struct | undefined;
  getNews?(): Struct | undefined;
}
interface Answer {
  setProperties(value: Struct): void;
}

/** The answer to a preview's Create or Update, or undefined when the request is a real one. */
export function previewAnswer<A extends Answer>(
  method: string,
  request: PreviewRequest,
  structs: StructClass,
  answer: () => A & { setId?(id: string): void },
): A | undefined {
  if (!request.getPreview?.()) return undefined;
  if (method === "create") {
    const resp = answer();
    resp.setProperties(structs.fromJavaScript(request.getProperties?.()?.toJavaScript() ?? {}));
    return resp;
  }
  if (method === "update") {
    const id = request.getId?.() ?? "";
    const outs: Record<string, unknown> = { ...(request.getNews?.()?.toJavaScript() ?? {}) };
    for (const key of SPECS[kindOf(request.getUrn())].idOutputs ?? []) outs[key] = id;
    const resp = answer();
    resp.setProperties(structs.fromJavaScript(outs));
    return resp;
  }
  return undefined;
}

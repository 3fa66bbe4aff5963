import { isSandboxError } from "../../sdk/errors";

/** The shape of one resource's remote operations; check and diff are generic (../check.ts, ../diff.ts). */
export type Inputs = Record<string, unknown>;
export type Outputs = Record<string, unknown>;

export interface ResourceHandlers {
  create(inputs: Inputs): Promise<{ id: string; outs: Outputs }>;
  /** `{}` (no id) means the resource is gone. */
  read(id: string, olds: Outputs): Promise<{ id?: string; props?: Outputs }>;
  update(id: string, olds: Outputs, news: Inputs): Promise<{ outs: Outputs }>;
  delete(id: string, olds: Outputs): Promise<void>;
}

export function isNotFound(err: unknown): boolean {
  return isSandboxError(err) && err.code === "not_found";
}

/** Treats a 404 as done: the thing to delete is already gone. */
export async function ignoreNotFound(call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

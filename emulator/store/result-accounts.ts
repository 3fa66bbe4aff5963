/**
 * The users a build's commands may run as (a RUN step's user, the template's USER at finalize): on
 * an image, those of its `/etc/passwd` as the build has it so far (a RUN step's own, else the
 * image's, which provisioning gave `user`: image-provision.ts); on the host's dirs, root and `user`.
 * The builder runs each command through envd, which refuses any other name.
 */
import { readSmallFile } from "../confined/read-small";
import { locate } from "../confined/walk";
import { BUILT_IN_ACCOUNTS, parsePasswd, type Account } from "../envd/accounts";
import type { TemplateResult } from "./template-tree";

export async function accountsOfResult(result: TemplateResult): Promise<readonly Account[]> {
  if (!result.image) return BUILT_IN_ACCOUNTS;
  const own = result.tree.get("/etc/passwd");
  const text = own?.type === "file" ? own.data?.toString("utf8") : await readSmallFile(locate({ root: result.image.dir }, "/etc/passwd", { followLast: true }), 1 << 20);
  const found = parsePasswd(text ?? "");
  return found.length > 0 ? found : BUILT_IN_ACCOUNTS;
}

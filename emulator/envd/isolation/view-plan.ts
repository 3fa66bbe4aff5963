/**
 * What a sandbox's namespaces are set up from (setup-script.ts), for a sandbox and a template's
 * build sandbox alike: an image's files with the sandbox's root dir over them, or the host's system
 * dirs (with the base image's tools: tools-layer.ts) and the sandbox's own account files; its
 * volumes; and its network, with the uplink's resolver as its `/etc/resolv.conf`.
 */
import type { EgressHosts } from "../network/egress-proxy";
import type { Egress } from "../network/egress-rules";
import { accountBinds, overlayDirsOf, systemDirOf, writeAccountFiles, writeResolvConf, type SystemBind } from "./layout";
import type { Isolation } from "./mode";
import type { SetupPlan } from "./setup-script";
import { systemBindsWithTools } from "./tools-layer";

export interface View {
  rootDir: string;
  /** The image's unpacked files, when the template pulled one. */
  imageDir?: string | undefined;
  volumes: SystemBind[];
  egress: Egress;
  egressHosts?: EgressHosts;
}

export function viewPlan(isolation: Isolation & { mode: "namespaces" }, view: View): SetupPlan {
  const { rootDir, imageDir, volumes } = view;
  const systemDir = systemDirOf(rootDir);
  const network = { egress: view.egress, resolvConf: writeResolvConf(systemDir), ...(view.egressHosts ? { egressHosts: view.egressHosts } : {}) };
  // An image's files with the root dir over them: no host dir is shown (setup-script.ts).
  if (imageDir !== undefined) return { rootDir, readOnly: [], volumes, image: { lower: imageDir, ...overlayDirsOf(rootDir) }, ...network };
  writeAccountFiles(systemDir);
  return { rootDir, readOnly: [...systemBindsWithTools(rootDir, systemDir, isolation), ...accountBinds(systemDir)], volumes, ...network };
}

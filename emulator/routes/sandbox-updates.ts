/**
 * Changes to a running sandbox besides timeout and pause: POST /sandboxes/{id}/refreshes (extend the
 * time to live, never shorten it; infra handlers/sandbox_refresh.go) and PUT /sandboxes/{id}/network
 * (replace the egress rules; handlers/sandbox_network_update.go). Both answer 204.
 */
import { checkEgress } from "../egress";
import { z } from "zod";
import { noContent } from "../http";
import type { Route } from "../router";
import { checkDnsServers, checkEgressProxy, EgressProxySchema } from "../network-fields";
import { checkNetworkRules, normalizedRules } from "../network-rules";
import type { Stores } from "../store";
import { DEFAULT_TIMEOUT_MS } from "../store/sandbox-records";
import { parseBody } from "../validate";
import { sandboxID } from "./sandboxes";

const RefreshSchema = z.object({ duration: z.int().min(0).max(3600).optional() });
/** SandboxNetworkUpdateConfig: no ingress and no `httpsPorts` (fixed at creation; an unknown field is ignored). */
const NetworkUpdateSchema = z.object({
  allowOut: z.array(z.string()).optional(),
  denyOut: z.array(z.string()).optional(),
  dnsServers: z.array(z.string()).optional(),
  egressProxy: EgressProxySchema,
  rules: z.record(z.string(), z.array(z.unknown())).optional(),
  allow_internet_access: z.boolean().optional(),
});

/** The refresh and network routes. */
export function sandboxUpdateRoutes(stores: Stores): Route[] {
  return [
    {
      method: "POST", pattern: "/sandboxes/:id/refreshes", auth: "apiKey",
      handler: async (ctx) => {
        const id = sandboxID(ctx.params.id ?? "");
        const body = await ctx.json();
        const { duration } = body === undefined ? {} : parseBody(RefreshSchema, body);
        // The real handler raises anything under the default time to live (15 s) to it.
        stores.sandboxes.refresh(id, Math.max(DEFAULT_TIMEOUT_MS, (duration ?? 0) * 1000));
        return noContent();
      },
    },
    {
      method: "PUT", pattern: "/sandboxes/:id/network", auth: "apiKey",
      handler: async (ctx) => {
        const id = sandboxID(ctx.params.id ?? "");
        const body = parseBody(NetworkUpdateSchema, await ctx.json());
        // The egress proxy is a per-team feature the emulator's one team does not have (403, after its own 400s).
        checkEgressProxy(body.egressProxy);
        checkEgress(body.allowOut, body.denyOut);
        checkDnsServers(body.dnsServers);
        checkNetworkRules(body.rules as Record<string, unknown[]> | undefined);
        const egress = { allowOut: body.allowOut, denyOut: body.denyOut, rules: normalizedRules(body.rules), dnsServers: body.dnsServers };
        await stores.sandboxes.updateNetwork(id, egress, body.allow_internet_access);
        return noContent();
      },
    },
  ];
}

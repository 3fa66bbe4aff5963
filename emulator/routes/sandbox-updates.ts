/**
 * Changes to a running sandbox besides timeout and pause: POST /sandboxes/{id}/refreshes (extend the
 * time to live, never shorten it; infra handlers/sandbox_refresh.go) and PUT /sandboxes/{id}/network
 * (replace the egress rules; handlers/sandbox_network_update.go). Both answer 204.
 */
import { checkEgress } from "../egress";
import { z } from "zod";
import { ApiError, noContent } from "../http";
import type { Route } from "../router";
import { checkNetworkRules } from "../network-rules";
import type { Stores } from "../store";
import { DEFAULT_TIMEOUT_MS } from "../store/sandbox-records";
import { parseBody } from "../validate";
import { sandboxID } from "./sandboxes";

const RefreshSchema = z.object({ duration: z.int().min(0).max(3600).optional() });
const NetworkUpdateSchema = z.object({
  allowOut: z.array(z.string()).optional(),
  denyOut: z.array(z.string()).optional(),
  egressProxy: z.object({ address: z.string(), username: z.string().max(255).optional(), password: z.string().max(255).optional() }).nullable().optional(),
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
        // The egress proxy is a per-team feature the emulator's one team does not have.
        if (body.egressProxy) throw new ApiError(403, "Egress proxy (egressProxy) is not enabled for this team.");
        checkEgress(body.allowOut, body.denyOut);
        checkNetworkRules(body.rules as Record<string, unknown[]> | undefined);
        stores.sandboxes.updateNetwork(id, { allowOut: body.allowOut, denyOut: body.denyOut, rules: body.rules }, body.allow_internet_access);
        return noContent();
      },
    },
  ];
}

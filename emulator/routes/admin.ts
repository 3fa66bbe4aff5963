/**
 * Admin routes under /_emulator/ (API key required, never subject to faults): the inventory, the
 * request log with a `?since=` cursor, the fault switches, the webhook deliveries, and the switch that marks a sandbox's
 * guest agent as not answering (docs/service.md#sandbox-fields-of-the-newest-sdks).
 */
import { z } from "zod";
import type { CallLog } from "../calls";
import { validateFaults, type Faults } from "../faults";
import { ApiError, json, noContent } from "../http";
import { inventoryOf } from "../inventory";
import type { Route } from "../router";
import type { Stores } from "../store";
import { parseBody, queryInt } from "../validate";
import { sandboxID } from "./sandboxes";

const EnvdSwitchSchema = z.object({ responsive: z.boolean() });

/** The /_emulator/ routes. */
export function adminRoutes(stores: Stores, faults: Faults, calls: CallLog): Route[] {
  return [
    { method: "GET", pattern: "/_emulator/inventory", auth: "apiKey", handler: () => json(200, inventoryOf(stores)) },
    {
      method: "GET", pattern: "/_emulator/calls", auth: "apiKey",
      handler: (ctx) => {
        const list = calls.since(queryInt(ctx.query, "since", 0, 0, Number.MAX_SAFE_INTEGER));
        return json(200, { calls: list, last: calls.last() });
      },
    },
    { method: "GET", pattern: "/_emulator/faults", auth: "apiKey", handler: () => json(200, { faults: faults.get() }) },
    // Every webhook delivery with its attempts, oldest first (webhooks/deliveries.ts).
    { method: "GET", pattern: "/_emulator/webhook-deliveries", auth: "apiKey", handler: () => json(200, { deliveries: stores.deliveries.all() }) },
    {
      method: "POST", pattern: "/_emulator/faults", auth: "apiKey",
      handler: async (ctx) => {
        try {
          faults.set(validateFaults((await ctx.json()) ?? {}));
        } catch (err) {
          if (err instanceof ApiError) throw err;
          throw new ApiError(400, (err as Error).message);
        }
        return json(200, { faults: faults.get() });
      },
    },
    {
      // `{responsive: false}`: a pause's health probe finds the running sandbox's envd not answering, until
      // `{responsive: true}` or a cold boot. 204; 404 for no such sandbox, 409 for a paused one.
      method: "POST", pattern: "/_emulator/sandboxes/:id/envd", auth: "apiKey",
      handler: async (ctx) => {
        const { responsive } = parseBody(EnvdSwitchSchema, await ctx.json());
        stores.sandboxes.setEnvdResponsive(sandboxID(ctx.params.id ?? ""), responsive);
        return noContent();
      },
    },
  ];
}

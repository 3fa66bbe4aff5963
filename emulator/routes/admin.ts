/**
 * Admin routes under /_emulator/ (API key required, never subject to faults): the inventory, the
 * request log with a `?since=` cursor, and the fault switches.
 */
import type { CallLog } from "../calls";
import { validateFaults, type Faults } from "../faults";
import { ApiError, json } from "../http";
import { inventoryOf } from "../inventory";
import type { Route } from "../router";
import type { Stores } from "../store";
import { queryInt } from "../validate";

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
  ];
}

/**
 * Volume routes: create 201 (a taken name is 400, not 409), list, get (a fresh token each time),
 * delete 204. A non-UUID ID is 400 "Invalid volume ID"; an unknown one 404 "Volume not found".
 */
import { z } from "zod";
import { json, noContent } from "../http";
import type { Route } from "../router";
import type { Stores } from "../store";
import type { VolumeRecord } from "../store/volumes";
import { parseBody } from "../validate";

const NAME_PATTERN = "^[a-zA-Z0-9_-]+$";
const NewVolumeSchema = z.object({
  name: z.string().regex(new RegExp(NAME_PATTERN), { message: `string doesn't match the regular expression "${NAME_PATTERN}"` }),
});

/** The /volumes routes. */
export function volumeRoutes(stores: Stores): Route[] {
  const { volumes } = stores;
  const withToken = (v: VolumeRecord) => ({ volumeID: v.volumeID, name: v.name, token: volumes.mintToken(v) });
  return [
    {
      method: "POST", pattern: "/volumes", auth: "apiKey",
      handler: async (ctx) => json(201, withToken(volumes.create(parseBody(NewVolumeSchema, await ctx.json()).name))),
    },
    {
      method: "GET", pattern: "/volumes", auth: "apiKey",
      handler: () => json(200, volumes.all().map((v) => ({ volumeID: v.volumeID, name: v.name }))),
    },
    { method: "GET", pattern: "/volumes/:id", auth: "apiKey", handler: (ctx) => json(200, withToken(volumes.get(ctx.params.id!))) },
    { method: "DELETE", pattern: "/volumes/:id", auth: "apiKey", handler: (ctx) => (volumes.delete(ctx.params.id!), noContent()) },
  ];
}

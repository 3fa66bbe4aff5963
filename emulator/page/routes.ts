/**
 * The page's routes: its files (no credential: they hold none), and the few inspection routes
 * it needs that the API lacks, each behind the API key like every `/_emulator/` route. These answer
 * what the API's own answers would, less every credential: a sandbox's view has no envd or traffic
 * token, a resume answers 204 instead of the sandbox with its tokens. Everything else the page reads
 * from the API's own routes.
 */
import { layoutOf } from "../envd/links";
import { ApiError, json, noContent, type RequestContext } from "../http";
import type { Route } from "../router";
import { sandboxID } from "../routes/sandboxes";
import { detailView } from "../routes/sandbox-views";
import type { Stores } from "../store";
import { viewPath } from "./files";
import { listeningPorts } from "./ports";
import { ProcessLog } from "./process-log";
import { processViews } from "./process-view";
import { providerMarks } from "./provider-marks";
import { asset, PAGE_PATH } from "./static";

/** A resume from the page keeps the sandbox 5 minutes, the official SDKs' default for a connect (the API's own is 15 s). */
const RESUME_TIMEOUT_MS = 300_000;

/** The page's record of each sandbox's commands, for envd's `onSpawn`; a killed sandbox's are forgotten. */
export function pageProcessLog(stores: Stores): ProcessLog {
  const log = new ProcessLog((id) => stores.sandboxes.all().some((s) => s.sandboxID === id));
  stores.sandboxes.onStopped((id) => log.forgetIfGone(id));
  return log;
}

/** The page's files and its inspection routes. */
export function pageRoutes(stores: Stores, processes: ProcessLog): Route[] {
  const file = (pattern: string, name: Parameters<typeof asset>[0]): Route => ({ method: "GET", pattern, auth: "none", handler: () => asset(name) });
  return [
    file(PAGE_PATH, "index.html"),
    file(`${PAGE_PATH}app.js`, "app.js"),
    file(`${PAGE_PATH}ui.js`, "ui.js"),
    file(`${PAGE_PATH}sandbox-live.js`, "sandbox-live.js"),
    file(`${PAGE_PATH}style.css`, "style.css"),
    { method: "GET", pattern: "/_emulator/page/sandboxes/:id", auth: "apiKey", handler: (ctx) => sandboxPage(stores, ctx) },
    { method: "GET", pattern: "/_emulator/page/sandboxes/:id/files", auth: "apiKey", handler: (ctx) => sandboxFiles(stores, ctx) },
    {
      // envd's processes and what they wrote, environment values left out (./process-view.ts).
      method: "GET", pattern: "/_emulator/page/sandboxes/:id/processes", auth: "apiKey",
      handler: (ctx) => {
        const id = sandboxID(ctx.params.id ?? "");
        return json(200, processViews(stores.sandboxes.get(id), processes.of(id)));
      },
    },
    // Which marked objects a finished create made and which ones an interrupted run left (./provider-marks.ts).
    { method: "GET", pattern: "/_emulator/page/provider-marks", auth: "apiKey", handler: () => json(200, providerMarks(stores)) },
    { method: "GET", pattern: "/_emulator/page/volumes/:id/files", auth: "apiKey", handler: async (ctx) => json(200, await viewPath({ root: stores.volumes.get(ctx.params.id!).hostDir }, ctx.query.get("path"))) },
    {
      // The API's resume, answered without the sandbox's tokens (POST /sandboxes/{id}/resume answers them).
      method: "POST", pattern: "/_emulator/page/sandboxes/:id/resume", auth: "apiKey",
      handler: async (ctx) => {
        const id = sandboxID(ctx.params.id ?? "");
        if (stores.sandboxes.get(id).state === "running") throw new ApiError(409, `Sandbox ${id} is already running`);
        await stores.sandboxes.connect(id, RESUME_TIMEOUT_MS);
        return noContent();
      },
    },
  ];
}

/** GET /sandboxes/{id}'s detail without its tokens, with the ports it listens on and their URLs. */
async function sandboxPage(stores: Stores, ctx: RequestContext) {
  const record = stores.sandboxes.get(sandboxID(ctx.params.id ?? ""));
  const { envdAccessToken: _envd, ...detail } = detailView(record);
  const ports = record.state === "running" ? await listeningPorts(record.rootDir) : [];
  return json(200, { ...detail, ports: ports.map((port) => ({ port, url: portUrl(ctx.origin, port, record.sandboxID) })) });
}

/** A sandbox port's host under the emulator's: `{port}-{id}.localhost:{emulator port}`, or under its domain. */
function portUrl(origin: string, port: number, id: string): string {
  const url = new URL(origin);
  const host = url.hostname.startsWith("api.") ? url.hostname.slice(4) : "localhost";
  return `${url.protocol}//${port}-${id}.${host}${url.port ? `:${url.port}` : ""}/`;
}

async function sandboxFiles(stores: Stores, ctx: RequestContext) {
  const id = sandboxID(ctx.params.id ?? "");
  const runtime = stores.sandboxes.running(id);
  if (!runtime) throw new ApiError(409, `Sandbox ${id} is not running: resume it to browse its files`);
  return json(200, await viewPath(layoutOf(runtime), ctx.query.get("path") ?? runtime.homePath));
}

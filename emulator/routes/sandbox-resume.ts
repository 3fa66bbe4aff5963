/**
 * POST /sandboxes/{id}/resume: deprecated in the platform spec but still served (e2b-dev/infra:
 * packages/api/internal/handlers/sandbox_resume.go). The body is optional; `timeout` defaults to
 * 15 s and must be above 0. A paused sandbox resumes and the answer is 201 with the sandbox;
 * resumes that meet one under way join it; a running one is a 409; an unknown or killed one a
 * 404 (docs/service.md#pause-and-resume).
 */
import { z } from "zod";
import { ApiError, json } from "../http";
import type { Route } from "../router";
import type { Stores } from "../store";
import { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS } from "../store/sandbox-records";
import { parseBody } from "../validate";
import { sandboxID } from "./sandboxes";
import { sandboxView } from "./sandbox-views";

const ResumeSchema = z.object({ timeout: z.int32().min(0).optional(), autoPause: z.boolean().optional(), memory: z.boolean().optional() });

/** The resume route. */
export function sandboxResumeRoutes(stores: Stores): Route[] {
  return [
    {
      method: "POST", pattern: "/sandboxes/:id/resume", auth: "apiKey",
      handler: async (ctx) => {
        const id = sandboxID(ctx.params.id ?? "");
        const raw = await ctx.json();
        const body = raw === undefined ? {} : parseBody(ResumeSchema, raw);
        const timeoutMs = resumeTimeoutMs(body.timeout);
        const record = stores.sandboxes.get(id);
        if (record.state === "running") throw new ApiError(409, `Sandbox ${id} is already running`);
        // The store's resume takes a slot of the team's limit, as connect's does (docs/service.md#limits).
        const { record: resumed } = await stores.sandboxes.connect(id, timeoutMs, { keepMemory: body.memory });
        return json(201, sandboxView(resumed));
      },
    },
  ];
}

/** The handler's validateAndParseTimeout: 15 s when absent, 400 at 0 or below or over the plan's maximum. */
function resumeTimeoutMs(timeoutS: number | undefined): number {
  if (timeoutS === undefined) return DEFAULT_TIMEOUT_MS;
  if (timeoutS <= 0) throw new ApiError(400, "Timeout must be greater than 0");
  if (timeoutS * 1000 > MAX_TIMEOUT_MS) throw new ApiError(400, `Timeout cannot be greater than ${MAX_TIMEOUT_MS / 3_600_000} hours`);
  return timeoutS * 1000;
}

/**
 * The arguments and results of the lookups of one thing by its ID or alias (a sandbox, a volume, what
 * an alias names), and the sandbox a list shows, which the one sandbox extends; beside
 * ./lookup-shapes.ts, whose table uses them. Only zod here, as there.
 */
import { z } from "zod";

export const SANDBOX_STATES = ["running", "paused"] as const;

const required = (what: string) => z.string().min(1, { error: "must not be empty" }).describe(what);

export const GetSandboxArgs = z.strictObject({ sandboxID: required("The sandbox's ID.") });

export const SandboxInfo = z.object({
  sandboxID: z.string().describe("The sandbox's ID."),
  templateID: z.string().describe("The ID of its template."),
  alias: z.string().optional().describe("The alias of its template, when it has one."),
  state: z.enum(SANDBOX_STATES).describe("`running` or `paused`."),
  metadata: z.record(z.string(), z.string()).describe("Its metadata."),
  startedAt: z.string().describe("When it started (RFC 3339)."),
  endAt: z.string().describe("When it expires unless extended (RFC 3339)."),
});

/** A sandbox as the lookup of one shows it: what a list shows, and more. */
export const SandboxDetailInfo = SandboxInfo.extend({
  endAt: z.string().describe("When it expires unless extended (RFC 3339); when it paused, for a paused one."),
  cpuCount: z.number().int().describe("Its vCPUs."),
  memoryMB: z.number().int().describe("Its memory, in MiB."),
  diskSizeMB: z.number().int().describe("Its disk, in MiB."),
  envdVersion: z.string().describe("Version of its in-sandbox daemon."),
  envdAccessToken: z.string().optional().describe("The token its in-sandbox API takes (a sandbox created with `secure`). Secret."),
  allowInternetAccess: z.boolean().optional().describe("Whether it may reach the internet, when it was set at creation."),
  domain: z.string().optional().describe("Its domain, on a team's own cluster."),
  onTimeout: z.enum(["kill", "pause"]).optional().describe("What its timeout does: `kill` or `pause`."),
  autoResume: z.boolean().optional().describe("Whether traffic resumes it once paused."),
  volumeMounts: z.record(z.string(), z.string()).optional().describe("The volumes mounted in it: the volume's name by mount path."),
});

export const GetVolumeArgs = z.strictObject({ volumeID: required("The volume's ID.") });

export const VolumeDetailInfo = z.object({
  volumeID: z.string().describe("The volume's ID."),
  name: z.string().describe("Its name, unique in the team."),
  token: z.string().describe("A token of its content API, minted by this lookup (it expires). Secret."),
  domain: z.string().optional().describe("The domain of its content API, on a team's own cluster."),
});

export const GetTemplateAliasArgs = z.strictObject({ alias: required("The alias (`GET /templates/aliases/{alias}`).") });

export const TemplateAliasInfo = z.object({
  alias: z.string().describe("The alias looked up."),
  templateID: z.string().describe("The ID of the template the alias names."),
  public: z.boolean().describe("Whether other teams may use the template."),
});

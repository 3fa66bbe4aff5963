/**
 * The platform API client: one object per set of credentials, holding one keep-alive connection
 * pool shared by its areas.
 */
import { resolveOptions, type ClientOptions, type ResolvedOptions } from "../config";
import { HttpClient } from "../transport/http";
import { LifecycleEvents } from "./lifecycle-events";
import { Sandboxes } from "./sandboxes";
import { Secrets } from "./secrets";
import { Snapshots } from "./snapshots";
import { Teams } from "./teams";
import { TemplateBuilds } from "../template-build/client";
import { Templates } from "./templates";
import { Volumes } from "./volumes";
import { Webhooks } from "./webhooks";

export class PlatformClient {
  readonly options: ResolvedOptions;
  readonly sandboxes: Sandboxes;
  readonly templates: Templates;
  /** The current build system (v3/v2 calls, uploads, tags). */
  readonly builds: TemplateBuilds;
  readonly volumes: Volumes;
  readonly snapshots: Snapshots;
  readonly secrets: Secrets;
  /** Lifecycle webhooks: register, list, read, update, unregister. */
  readonly webhooks: Webhooks;
  /** Sandbox lifecycle events of the last 7 days: all of the team's, or one sandbox's. */
  readonly events: LifecycleEvents;
  readonly teams: Teams;
  private readonly http: HttpClient;

  /**
   * Resolves options now (explicit option, then env `E2B_API_KEY`, `E2B_ACCESS_TOKEN`,
   * `E2B_DOMAIN`, `E2B_API_URL`, then defaults); sends nothing. A missing credential is reported by
   * the first call that needs it, before any request.
   *
   * @param env environment to read; default `process.env`.
   */
  constructor(options?: ClientOptions, env?: Record<string, string | undefined>) {
    this.options = resolveOptions(options, env);
    this.http = new HttpClient(this.options);
    this.sandboxes = new Sandboxes(this.http);
    this.templates = new Templates(this.http);
    this.builds = new TemplateBuilds(this.http);
    this.volumes = new Volumes(this.http);
    this.snapshots = new Snapshots(this.http);
    this.secrets = new Secrets(this.http);
    this.webhooks = new Webhooks(this.http);
    this.events = new LifecycleEvents(this.http);
    this.teams = new Teams(this.http);
  }

  /** Closes the connection pool this client owns; in-flight requests finish first. */
  close(): Promise<void> {
    return this.http.close();
  }
}

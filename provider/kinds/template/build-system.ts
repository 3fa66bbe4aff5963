/**
 * What a Template's two build systems share (./template-v2.ts, the service's current one, and
 * ./template-v1.ts, the legacy endpoints), so the handlers (./template.ts) run one sequence for
 * both: plan before the first call, request a build, record it, start it, wait for it.
 */

/** A build of a template, and its status when it was found (undefined for one just requested). */
export interface BuildRef {
  templateID: string;
  buildID: string;
  status?: string | undefined;
}

/** Settles a build request whose answer was lost, by looking for the build it may have made. */
export type FindBuild = () => Promise<BuildRef | undefined>;

/** One build system, for one Template's checked inputs. */
export interface BuildSystem {
  /** Inputs whose change is a new build (besides `force` set to true). */
  readonly rebuildOn: readonly string[];
  /** Makes what the build needs before its first call, so that a problem stops the run before any. */
  plan(): void;
  /** Requests the first build of a new template. */
  first(find: FindBuild): Promise<BuildRef>;
  /** Requests a new build of the template. */
  again(templateID: string, started: FindBuild): Promise<BuildRef>;
  /** Takes a requested build (just requested, or found waiting) to running. */
  start(ref: BuildRef): Promise<void>;
  /** The `buildSteps` line of the step the service reports as failed (its index), if there is one. */
  stepLine(step: string): string | undefined;
}

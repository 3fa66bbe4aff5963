/**
 * The pace of a build wait (sdk/template-build/build-wait.ts), as pure functions: which stage the build's own log
 * puts it in, and the pause each stage, 429 and Retry-After lead to.
 */
import { describe, expect, test } from "vitest";
import { BUILD_MAX_PAUSE_MS, BuildPace, stageAfter } from "../../sdk/template-build/build-wait";
import type { BuildLogEntry } from "../../sdk/schemas/templates";

const at = "2026-01-01T00:00:00Z";
const line = (message: string, step?: string, level: BuildLogEntry["level"] = "info"): BuildLogEntry =>
  step === undefined ? { timestamp: at, message, level } : { timestamp: at, message, level, step };

/** The service's log of a good three-step build, in order (infra's builder wording). */
const SERVICE_LOG = [
  line("Building template t1/b1"),
  line("[base] FROM e2bdev/base [abc]", "base"),
  line("[builder 1/3] RUN apt-get update [def]", "1"),
  line("[builder 2/3] WORKDIR /app [ghi]", "2"),
  line("[builder 3/3] RUN pip install flask [jkl]", "3"),
  line("[finalize] Finalizing template build [mno]", "finalize"),
  line("Running start command: python app.py", "finalize"),
  line("[optimize] Optimizing template [pqr]", "optimize"),
  line("Build finished, took 1m5s"),
];

describe("stageAfter", () => {
  test("running through the steps, finalizing from the last step on, finished at the builder's last line", () => {
    const stages = SERVICE_LOG.map((_, i) => stageAfter("running", SERVICE_LOG.slice(0, i + 1)));
    expect(stages).toEqual(["running", "running", "running", "running", "finalizing", "finalizing", "finalizing", "finalizing", "finished"]);
  });

  test("the last step is known by its count, cached or not, in the service's wording and a v1 build's", () => {
    expect(stageAfter("running", [line("CACHED [builder 2/2] RUN make [abc]", "2")])).toBe("finalizing");
    expect(stageAfter("running", [line("[2/2] RUN make", "2")])).toBe("finalizing");
    expect(stageAfter("running", [line("[builder 1/2] RUN make [abc]", "1")])).toBe("running");
    // A step's own output that merely looks like a count is not its first line.
    expect(stageAfter("running", [line("[3/3] done", "1")])).toBe("running");
  });

  test("a failing builder's last line finishes too; the optimize phase alone counts as finalizing", () => {
    expect(stageAfter("running", [line("Build failed: exit status 3", undefined, "error")])).toBe("finished");
    expect(stageAfter("running", [line("[optimize] Optimizing template [x]", "optimize")])).toBe("finalizing");
  });

  test("lines that only look like the end do not count: a step's own output, a v1 progress line", () => {
    expect(stageAfter("running", [line("Build finished, took 3s", "2")])).toBe("running");
    expect(stageAfter("finalizing", [line("...")])).toBe("finalizing");
    expect(stageAfter("running", [line("Building finished soon")])).toBe("running");
  });

  test("a stage never goes back", () => {
    expect(stageAfter("finished", [line("[finalize] again", "finalize"), line("[builder 1/1] RUN x", "1")])).toBe("finished");
  });
});

describe("BuildPace", () => {
  const paceAt = (entries: BuildLogEntry[], runningMs?: number) => {
    const pace = new BuildPace(runningMs);
    pace.observe(entries);
    return pace;
  };

  test("1 s while steps run, 250 ms from the last step on, 100 ms after the builder's last line", () => {
    expect(paceAt([]).nextPauseMs()).toBe(1000);
    expect(paceAt(SERVICE_LOG.slice(0, 4)).nextPauseMs()).toBe(1000);
    expect(paceAt(SERVICE_LOG.slice(0, 5)).nextPauseMs()).toBe(250);
    expect(paceAt(SERVICE_LOG.slice(0, 6)).nextPauseMs()).toBe(250);
    expect(paceAt(SERVICE_LOG).nextPauseMs()).toBe(100);
    expect(paceAt(SERVICE_LOG).current).toBe("finished");
  });

  test("a shorter running pause bounds every stage; a longer one leaves the late stages as they are", () => {
    expect([paceAt([], 5).nextPauseMs(), paceAt(SERVICE_LOG.slice(0, 6), 5).nextPauseMs(), paceAt(SERVICE_LOG, 5).nextPauseMs()]).toEqual([5, 5, 5]);
    expect([paceAt([], 3000).nextPauseMs(), paceAt(SERVICE_LOG.slice(0, 6), 3000).nextPauseMs()]).toEqual([3000, 250]);
  });

  test("a 429 doubles every later pause; the next one lasts at least its Retry-After, once", () => {
    const pace = paceAt(SERVICE_LOG);
    pace.throttled(1500);
    expect(pace.nextPauseMs()).toBe(1500);
    expect(pace.nextPauseMs()).toBe(200);
    pace.throttledAndWaited();
    expect(pace.nextPauseMs()).toBe(400);
  });

  test("a 429 without Retry-After waits at least a second; the slowdown stops at the ceiling", () => {
    const pace = new BuildPace();
    pace.throttled(undefined);
    expect(pace.nextPauseMs()).toBe(2000);
    for (let i = 0; i < 20; i++) pace.throttledAndWaited();
    expect(pace.nextPauseMs()).toBe(BUILD_MAX_PAUSE_MS);
  });
});

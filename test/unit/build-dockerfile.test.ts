/** Dockerfile → steps (sdk/template-build/dockerfile-steps.ts): the service SDK's conversion, and what is refused, by line. */
import { describe, expect, test } from "vitest";
import { dockerfileToSteps, DockerfileError } from "../../sdk/template-build";

describe("dockerfileToSteps", () => {
  test("each instruction becomes its step, between the Docker and the service defaults", () => {
    const build = dockerfileToSteps([
      "# a comment",
      "FROM python:3.12 AS app",
      "ARG VERSION",
      "ENV A=1 B=\"two words\"",
      "ENV LEGACY some value",
      "RUN pip install \\",
      "    requests",
      "COPY --chown=user:user --chmod=755 src/ lib.py /app/",
      'ADD ["data.tar", "/data/"]',
      "EXPOSE 8080",
      'CMD ["python", "-m", "app"]',
    ].join("\n"));
    expect(build.fromImage).toBe("python:3.12");
    expect(build.steps).toEqual([
      { type: "USER", args: ["root"] },
      { type: "WORKDIR", args: ["/"] },
      { type: "ENV", args: ["VERSION", ""] },
      { type: "ENV", args: ["A", "1", "B", "two words"] },
      { type: "ENV", args: ["LEGACY", "some value"] },
      // Continued lines joined as BuildKit (and e2b 2.63) joins them: the whitespace around the `\` kept.
      { type: "RUN", args: ["pip install     requests"] },
      { type: "COPY", args: ["src/", "/app/", "user:user", "0755"] },
      { type: "COPY", args: ["lib.py", "/app/", "user:user", "0755"] },
      { type: "COPY", args: ["data.tar", "/data/", "", ""] },
      { type: "USER", args: ["user"] },
      { type: "WORKDIR", args: ["/home/user"] },
    ]);
    expect(build.lines).toEqual([undefined, undefined, 3, 4, 5, 6, 8, 8, 9, undefined, undefined]);
    expect(build).toMatchObject({ startCmd: "python -m app", readyCmd: "sleep 20" });
  });

  test("a Dockerfile's own USER and WORKDIR are kept, not overridden", () => {
    const { steps } = dockerfileToSteps("FROM node:22\nUSER node\nWORKDIR /srv");
    expect(steps.slice(-2)).toEqual([{ type: "USER", args: ["node"] }, { type: "WORKDIR", args: ["/srv"] }]);
  });

  test("what the service cannot build is refused, every problem naming its line and instruction", () => {
    const text = [
      "FROM golang AS build",
      "COPY ../secret /x",
      "ADD https://example.com/a.tgz /opt/",
      "COPY --from=build /bin/app /app",
      "SHELL [\"/bin/bash\", \"-c\"]",
      "RUNN echo",
      "FROM alpine",
    ].join("\n");
    const err = (() => {
      try {
        dockerfileToSteps(text);
      } catch (e) {
        return e;
      }
    })() as DockerfileError;
    expect(err).toBeInstanceOf(DockerfileError);
    expect(err.code).toBe("invalid_argument");
    expect(err.message).toBe([
      "Dockerfile line 2: COPY: source '../secret' is outside the build context",
      "Dockerfile line 3: ADD: a URL source (https://example.com/a.tgz) cannot be uploaded; fetch it in a RUN step instead",
      "Dockerfile line 4: COPY: --from copies from another stage; multi-stage Dockerfiles are not supported",
      // SHELL (line 5) is ignored with a warning, as e2b 2.63 ignores it (test/unit/dockerfile-newest.test.ts).
      "Dockerfile line 6: RUNN: is not an instruction the service can build (unknown instruction)",
      "Dockerfile line 7: FROM: multi-stage Dockerfiles are not supported (one FROM only)",
    ].join("\n"));
  });

  test("a Dockerfile without FROM is refused", () => {
    expect(() => dockerfileToSteps("RUN echo")).toThrow("Dockerfile line 1: FROM: a FROM instruction is required");
  });
});

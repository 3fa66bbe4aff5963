/**
 * The second run both suites make: files that fake the service, and files with a failed test, run
 * again with the API key but not the two URL variables (unit tests check the default domain's
 * URLs, which the variables change). A test is taken from the run it passed in, else from the first:
 * nothing here reaches the public service, so a test passes without the URLs only if it needs none.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";

/** The suite's environment less `E2B_API_URL` and `E2B_SANDBOX_URL`. */
export function withoutUrls(env) {
  return Object.fromEntries(Object.entries(env).filter(([name]) => name !== "E2B_API_URL" && name !== "E2B_SANDBOX_URL"));
}

/** The test files under `root` whose names match `isTest`, as `<prefix>/<path>`. */
export function testFilesUnder(root, isTest, prefix = "tests") {
  return readdirSync(root, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? testFilesUnder(join(root, e.name), isTest, `${prefix}/${e.name}`) : isTest(e.name) ? [`${prefix}/${e.name}`] : []);
}

/** The files of `tests` with a failed test. */
export function failedFiles(tests) {
  return new Set(tests.filter((t) => t.status === "failed").map((t) => t.file));
}

/** Each test of the first run, or its result in the second where it passed only there. */
export function passedInEither(first, second) {
  const again = new Map(second.map((t) => [`${t.file} ${t.name}`, t]));
  return first.map((t) => {
    const other = again.get(`${t.file} ${t.name}`);
    return t.status !== "passed" && other?.status === "passed" ? other : t;
  });
}

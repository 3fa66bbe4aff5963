/**
 * Test helpers that hand back the error a call fails with, so tests can assert on its code and
 * message; they fail the test when the call succeeds.
 */
import type { SandboxError } from "../../sdk/errors";

/** The rejection of `p`, typed as the sdk's error. */
export async function failure(p: Promise<unknown>): Promise<SandboxError> {
  try {
    await p;
  } catch (err) {
    return err as SandboxError;
  }
  throw new Error("expected the call to fail");
}

/** What `fn` throws, typed as the sdk's error. */
export function thrown(fn: () => unknown): SandboxError {
  try {
    fn();
  } catch (err) {
    return err as SandboxError;
  }
  throw new Error("expected a throw");
}

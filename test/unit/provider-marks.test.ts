/**
 * The emulator's page names the provider's marks by its own constants (the emulator imports nothing of
 * the provider): they must stay the provider's, or the page would call every sandbox a killed run's.
 */
import { expect, test } from "vitest";
import { SANDBOX_CLAIMS, SANDBOX_MARKER, SANDBOX_NONCE, VOLUME_PENDING } from "../../emulator/page/provider-marks";
import { CLAIMS } from "../../provider/kinds/sandbox/claim";
import { NONCE_KEY } from "../../provider/kinds/sandbox/adoption";
import { MARKER_KEY } from "../../provider/kinds/sandbox/spec";
import { PENDING_FILE } from "../../provider/kinds/volume/claim";

test("the page reads the marks under the provider's names", () => {
  expect([SANDBOX_CLAIMS, SANDBOX_MARKER, SANDBOX_NONCE, VOLUME_PENDING]).toEqual([CLAIMS, MARKER_KEY, NONCE_KEY, PENDING_FILE]);
});

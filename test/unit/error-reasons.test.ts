import { describe, expect, test } from "vitest";
import { reasonFor } from "../../sdk/error-reasons";

// The service's own texts (docs/service.md#messages-the-code-acts-on) and the emulator's, by status.
const TABLE: [status: number, message: string, reason: ReturnType<typeof reasonFor>][] = [
  [400, "cannot delete template 'tpl-1' because there are running sandboxes using it", "template_in_use"],
  [400, "cannot delete template 'tpl-1' because there are paused sandboxes using it", "template_in_use"],
  [400, "Volume with name 'data' already exists", "name_taken"],
  [409, "Alias 'web' is already used", "name_taken"],
  [403, "Alias 'web' already used", "name_taken"],
  [409, "Error pausing sandbox - sandbox 'i123' is already paused", "already_paused"],
  [400, "build is not in waiting state", "build_not_waiting"],
  [429, "you have reached the maximum number of concurrent E2B sandboxes (20). If you need more, please visit 'https://e2b.dev/docs/billing'", "sandbox_limit"],
  // Look-alikes that are something else.
  [500, "Volume with name 'data' already exists", undefined],
  [404, "sandbox 'i123' is already paused", undefined],
  [400, "Timeout must be greater than 0", undefined],
  [409, "Sandbox \"i123\" is being paused", undefined],
  [500, "build is not in waiting state", undefined],
  [429, "Rate limit exceeded", undefined],
  [429, "you have reached the maximum number of concurrent template builds (20). Please wait for existing builds to complete", undefined],
];

describe("error reasons, classified once at the sdk boundary", () => {
  test.each(TABLE)("%i %s → %s", (status, message, reason) => {
    expect(reasonFor(status, message)).toBe(reason);
  });

  test("no message, no reason", () => {
    expect(reasonFor(400, undefined)).toBeUndefined();
  });
});

/**
 * The service's answers that callers act on, told apart by status and message, once, here. The
 * message texts are the service's own (docs/service.md#messages-the-code-acts-on); a caller branches on the
 * `reason` of the SandboxError, never on its text.
 */
import type { ErrorReason } from "./errors";

interface Rule {
  statuses: readonly number[];
  message: RegExp;
  reason: ErrorReason;
}

const RULES: readonly Rule[] = [
  // "cannot delete template 'X' because there are running sandboxes using it" (or paused)
  { statuses: [400], message: /because there are \w+ sandboxes using it/, reason: "template_in_use" },
  // volumes: 400 "Volume with name 'x' already exists"; aliases: 409 "Alias 'x' is already used", 403 when another team holds it
  { statuses: [400, 403, 409], message: /already (exists|taken|in use|used)/i, reason: "name_taken" },
  // POST /v2/templates/{id}/builds/{buildID}: "build is not in waiting state" once it was started
  { statuses: [400], message: /not in waiting state/i, reason: "build_not_waiting" },
  // "Error pausing sandbox - sandbox '<id>' is already paused"
  { statuses: [409], message: /is already paused/i, reason: "already_paused" },
  // "you have reached the maximum number of concurrent E2B sandboxes (N). If you need more, ..."
  { statuses: [429], message: /maximum number of concurrent E2B sandboxes/i, reason: "sandbox_limit" },
];

/** The reason of an HTTP error answer, from its status and the service's message; undefined when none applies. */
export function reasonFor(status: number, message: string | undefined): ErrorReason | undefined {
  if (!message) return undefined;
  return RULES.find((r) => r.statuses.includes(status) && r.message.test(message))?.reason;
}

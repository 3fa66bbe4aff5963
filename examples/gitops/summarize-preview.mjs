#!/usr/bin/env node
// Turns `pulumi preview --json` into the pull request's comment: a count of what the merge would create,
// update, replace and delete, a table of those resources, and the errors of a failed preview. Read by
// reviewers, so it names resources as the program does (the URN's last part) and leaves out the
// unchanged ones and the engine's internals (inputs, providers' state) that the JSON also carries.
//
//   node summarize-preview.mjs preview.json [stack] > preview.md
import { existsSync, readFileSync } from "node:fs";

// The engine's step ops (`op` of each step), by the change a reviewer sees. A replacement is several
// steps of one resource (create-replacement, then delete-replaced, around the `replace` step itself).
const KIND_OF_OP = {
  create: "create",
  update: "update",
  replace: "replace",
  "create-replacement": "replace",
  "delete-replaced": "replace",
  "discard-replaced": "replace",
  delete: "delete",
  discard: "delete",
  import: "import",
  "import-replacement": "import",
};
const KINDS = ["create", "update", "replace", "delete", "import"];
const VERB = { create: "to create", update: "to update", replace: "to replace", delete: "to delete", import: "to import" };

export function summarize(jsonText, stack) {
  const title = `### \`pulumi preview\` of stack \`${stack}\``;
  let plan;
  try {
    plan = JSON.parse(jsonText);
  } catch {
    return `${title}\n\nThe preview failed before it produced a plan: see the job's log.\n`;
  }
  const rows = changedResources(plan.steps ?? []);
  const counts = KINDS.filter((k) => k !== "import" || rows.some((r) => r.kind === k))
    .map((k) => `${rows.filter((r) => r.kind === k).length} ${VERB[k]}`);
  const unchanged = plan.changeSummary?.same ?? 0;
  const errors = (plan.diagnostics ?? []).filter((d) => d.severity === "error").map((d) => plain(d.message));
  const lines = [title, "", `${errors.length > 0 ? "**Failed.** " : ""}${counts.join(", ")}, ${unchanged} unchanged.`];
  if (rows.length > 0) {
    lines.push("", "| change | resource | type | what changes |", "|---|---|---|---|");
    for (const r of rows) lines.push(`| ${r.kind} | ${cell(r.name)} | ${cell(r.type)} | ${cell(r.keys.join(", "))} |`);
  }
  if (errors.length > 0) lines.push("", "Errors:", "", "```", ...errors, "```");
  return `${lines.join("\n")}\n`;
}

/** One row per resource that changes, in the engine's order, with the kind of change and the inputs it touches. */
function changedResources(steps) {
  const rows = new Map();
  for (const step of steps) {
    const kind = KIND_OF_OP[step.op];
    if (kind === undefined || rows.has(step.urn)) continue;
    const parts = String(step.urn).split("::");
    const keys = Object.keys(step.detailedDiff ?? {}).length > 0 ? Object.keys(step.detailedDiff) : (step.diffReasons ?? []);
    rows.set(step.urn, { kind, name: parts.at(-1), type: parts.at(-2), keys: keys.filter((k) => !k.startsWith("__")) });
  }
  return [...rows.values()];
}

/** A diagnostic as the log shows it, without its terminal colours. */
function plain(text) {
  return String(text ?? "").replace(/\u001b\[[0-9;]*m|<\{%[^%]*%\}>/g, "").trimEnd();
}

function cell(text) {
  return String(text).replace(/\|/g, "\\|");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, stack = process.env.STACK ?? "(unnamed)"] = process.argv.slice(2);
  if (!file) {
    console.error("usage: node summarize-preview.mjs preview.json [stack] > preview.md");
    process.exit(2);
  }
  // No file: the job failed before the preview wrote its plan.
  process.stdout.write(summarize(existsSync(file) ? readFileSync(file, "utf8") : "", stack));
}

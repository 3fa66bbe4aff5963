/**
 * examples/gitops/summarize-preview.mjs on the plans the e2e test does not reach (it previews a first
 * create): an update, a replacement (several engine steps of one resource), a delete, and a failed
 * preview. The input is `pulumi preview --json`'s shape: `steps` (op, urn, detailedDiff, diffReasons),
 * `changeSummary`, `diagnostics`.
 */
import { describe, expect, test } from "vitest";
// @ts-expect-error: the example's plain ESM script
import { summarize } from "../../examples/gitops/summarize-preview.mjs";

const urn = (type: string, name: string) => `urn:pulumi:pr-3::sandbox-gitops::${type}::${name}`;
const SANDBOX = "pulumi-nodejs:dynamic/sandbox:Sandbox";

describe("summarize-preview: pulumi preview --json as a pull request's comment", () => {
  test("an update names what changes; a replacement is one row; unchanged resources are counted, not listed", () => {
    const plan = {
      steps: [
        { op: "same", urn: urn("pulumi:pulumi:Stack", "sandbox-gitops-pr-3") },
        { op: "update", urn: urn(SANDBOX, "app"), detailedDiff: { timeoutSeconds: { kind: "update" }, __generation: { kind: "update" } } },
        { op: "create-replacement", urn: urn(SANDBOX, "worker"), diffReasons: ["templateID"] },
        { op: "replace", urn: urn(SANDBOX, "worker") },
        { op: "delete-replaced", urn: urn(SANDBOX, "worker") },
        { op: "delete", urn: urn("pulumi-nodejs:dynamic/sandbox:Volume", "old|data") },
      ],
      changeSummary: { same: 1, update: 1, replace: 1, delete: 1 },
    };
    expect(summarize(JSON.stringify(plan), "pr-3")).toBe(
      [
        "### `pulumi preview` of stack `pr-3`",
        "",
        "0 to create, 1 to update, 1 to replace, 1 to delete, 1 unchanged.",
        "",
        "| change | resource | type | what changes |",
        "|---|---|---|---|",
        `| update | app | ${SANDBOX} | timeoutSeconds |`,
        `| replace | worker | ${SANDBOX} | templateID |`,
        "| delete | old\\|data | pulumi-nodejs:dynamic/sandbox:Volume |  |",
        "",
      ].join("\n"),
    );
  });

  test("a failed preview says so and quotes its errors, without the terminal's colours", () => {
    const plan = {
      steps: [],
      diagnostics: [
        { severity: "info", message: "noise" },
        { severity: "error", urn: urn(SANDBOX, "app"), message: "\u001b[31mtimeoutSeconds: must be at most 86400\u001b[0m\n" },
      ],
    };
    const text = summarize(JSON.stringify(plan), "pr-3");
    expect(text).toContain("**Failed.** 0 to create, 0 to update, 0 to replace, 0 to delete, 0 unchanged.");
    expect(text).toContain("Errors:\n\n```\ntimeoutSeconds: must be at most 86400\n```\n");
    expect(text).not.toContain("noise");
  });

  test("no plan at all (the job failed before the preview wrote one) still makes a comment", () => {
    expect(summarize("", "pr-3")).toBe("### `pulumi preview` of stack `pr-3`\n\nThe preview failed before it produced a plan: see the job's log.\n");
  });
});

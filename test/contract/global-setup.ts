/**
 * Vitest global setup of `npm test` (test/contract/vitest.config.mts): every emulator of the run
 * records its exchanges (emulator/exchanges.ts), and at the end each is checked against the
 * platform contract and the newest clients' contracts. Any violation fails the run, naming the
 * contract (for a newest client's), operation, status, JSON path and the test file whose emulator
 * answered; the report is kept for `npm run contract`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { EXCHANGES_ENV } from "../../emulator/exchanges";
import { formatViolation, sourceLabel } from "./checker";
import { checkExchangeDir, LAST_REPORT } from "./exchanges";

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), "contract-exchanges-"));
  process.env[EXCHANGES_ENV] = dir;
  return () => {
    const report = checkExchangeDir(dir);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dirname(LAST_REPORT), { recursive: true });
    writeFileSync(LAST_REPORT, `${JSON.stringify(report, null, 2)}\n`);
    const operations = Object.keys(report.operations).length;
    const newest = Object.entries(report.newest).map(([label, n]) => `${label} (${Object.keys(n.operations).length})`).join(", ");
    console.log(
      `contract: ${report.exchanges} emulator answers checked against ${sourceLabel(report.source)} (${operations} operations) and ${newest}; ${report.violations.length} violations`,
    );
    if (report.violations.length === 0) return;
    const lines = report.violations.map((v) => `  ${v.contract ? `${v.contract}: ` : ""}${formatViolation(v)}  [${v.file}]`);
    // Repeats of one violation (same operation, status and path) are shown once, with a count.
    const counted = [...new Map(lines.map((l) => [l, lines.filter((x) => x === l).length])).entries()];
    throw new Error(`the emulator broke the service's contract:\n${counted.map(([l, n]) => (n > 1 ? `${l} (×${n})` : l)).join("\n")}`);
  };
}

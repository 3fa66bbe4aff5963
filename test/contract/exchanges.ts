/**
 * Reads the exchange files emulators wrote during a run (emulator/exchanges.ts) and checks each one
 * against the platform contract and the newest clients' contracts, building the report that the
 * global teardown fails on and that `npm run contract` prints as coverage tables.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Exchange } from "../../emulator/exchanges";
import { DASHBOARD_PREFIX } from "../../emulator/routes/dashboard";
import { ContractChecker, NOT_SERVED_STATUS, sourceLabel, type Contract, type Violation } from "./checker";

/** Requests whose User-Agent starts so were sent by our sdk; only theirs are held to the request schemas. */
export const SDK_USER_AGENT_PREFIX = "pulumi-sandbox/";

/** One exchange line as the emulator writes it, with the test file that caused it. */
type ExchangeLine = Exchange & { origin?: string };

/** What a run showed of one operation. */
export interface OperationUse {
  statuses: number[];
  /** Test files (relative paths) whose emulators answered it; `(unknown)` when none was named. */
  files: string[];
  /** Whether some answer was 501 (not served). */
  notServed: boolean;
}

/** A violation of a run, with the test file behind it and, for a newest client's contract, its label. */
export type RunViolation = Violation & { file: string; contract?: string };

export interface RunReport {
  source: Contract["source"];
  exchanges: number;
  /** Exchanges of paths no spec describes (our own extras, probes of unknown paths). */
  outsideSpec: number;
  /** Those paths, IDs folded to `{id}`, with how many answers each got. */
  outsidePaths: Record<string, number>;
  /** The operations of the platform, volume content and envd HTTP specs. */
  operations: Record<string, OperationUse>;
  /** Per newest client's contract (NEWEST_CONTRACTS), the operations of it the run answered. */
  newest: Record<string, { source: Contract["source"]; operations: Record<string, OperationUse> }>;
  violations: RunViolation[];
}

/** The path of the platform contract, next to this file. */
export const PLATFORM_CONTRACT = join(__dirname, "platform.contract.json");
/** The contract of envd's plain HTTP API (its envd.yaml); its operations are reported as `envd GET /files`. */
export const ENVD_HTTP_CONTRACT = join(__dirname, "envd-http.contract.json");
export const ENVD_PREFIX = "envd ";
/** The contract of the volume content API (E2B's spec/openapi-volumecontent.yml), served on the platform's origin. */
export const VOLUME_CONTENT_CONTRACT = join(__dirname, "volume-content.contract.json");
/**
 * Lifecycle events and webhooks (docs/service.md#lifecycle-events-and-webhooks): in no published spec
 * or client, so held to a contract written from the service's documentation pages, on the platform's origin.
 */
export const LIFECYCLE_EVENTS_CONTRACT = join(__dirname, "lifecycle-events-docs.contract.json");
/**
 * E2B's dashboard API (infra spec/openapi-dashboard.yml), served under DASHBOARD_PREFIX on the platform's
 * origin (emulator/routes/dashboard.ts); its operations are reported as `dashboard GET /builds`.
 */
export const DASHBOARD_CONTRACT = join(__dirname, "dashboard-api.contract.json");
export const DASHBOARD_OPERATION_PREFIX = "dashboard ";
/**
 * The platform API as the newest official clients declare it (docs/service.md#the-newest-clients-contracts):
 * npm `e2b`'s published types (scripts/gen-contract-newest.mjs) and PyPI `e2b`'s generated client
 * (scripts/gen-contract-pyclient.mjs). Each platform answer is checked against each of them that has its
 * operation, as well as against PLATFORM_CONTRACT.
 */
export const NEWEST_CONTRACTS = [join(__dirname, "platform-newest.contract.json"), join(__dirname, "platform-newest-python.contract.json")];

export function loadContract(path = PLATFORM_CONTRACT): Contract {
  return JSON.parse(readFileSync(path, "utf8")) as Contract;
}

/** Checks every exchange line in `dir` (all `*.ndjson` files). */
export function checkExchangeDir(dir: string, contract = loadContract(), newest = NEWEST_CONTRACTS.map((p) => loadContract(p))): RunReport {
  // The platform's origin serves three contracts: the platform API, the volume content API, lifecycle events and webhooks.
  const platform = [contract, loadContract(VOLUME_CONTENT_CONTRACT), loadContract(LIFECYCLE_EVENTS_CONTRACT)].map((c) => new ContractChecker(c));
  const envd = [new ContractChecker(loadContract(ENVD_HTTP_CONTRACT))];
  const dashboard = [new ContractChecker(loadContract(DASHBOARD_CONTRACT))];
  const newestCheckers = newest.map((c) => ({ label: sourceLabel(c.source), checker: new ContractChecker(c) }));
  const report: RunReport = { source: contract.source, exchanges: 0, outsideSpec: 0, outsidePaths: {}, operations: {}, newest: {}, violations: [] };
  for (const { label, checker } of newestCheckers) report.newest[label] = { source: checker.contract.source, operations: {} };
  for (const read of readLines(dir)) {
    report.exchanges++;
    const line = dashboardLine(read);
    const prefix = line.area === "envd" ? ENVD_PREFIX : line.area === "dashboard" ? DASHBOARD_OPERATION_PREFIX : "";
    const file = line.origin ?? "(unknown)";
    const checkRequest = line.userAgent?.startsWith(SDK_USER_AGENT_PREFIX) ?? false;
    const checker = (line.area === "envd" ? envd : line.area === "dashboard" ? dashboard : platform).find((c) => c.operationOf(line.method, line.path) !== undefined);
    let matched = checker !== undefined;
    if (checker) {
      const operation = prefix + checker.operationOf(line.method, line.path)!;
      use(report.operations, operation, line.status, file);
      for (const v of checker.check({ ...line, checkRequest })) report.violations.push({ ...v, operation: prefix + v.operation, file });
    }
    for (const { label, checker: n } of line.area === undefined ? newestCheckers : []) {
      const operation = n.operationOf(line.method, line.path);
      if (operation === undefined) continue;
      matched = true;
      use(report.newest[label]!.operations, operation, line.status, file);
      for (const v of n.check({ ...line, checkRequest })) report.violations.push({ ...v, file, contract: label });
    }
    if (!matched) {
      report.outsideSpec++;
      const key = `${prefix}${line.method} ${foldIDs(line.path)}`;
      report.outsidePaths[key] = (report.outsidePaths[key] ?? 0) + 1;
    }
  }
  for (const uses of [report.operations, ...Object.values(report.newest).map((n) => n.operations)]) {
    for (const u of Object.values(uses)) {
      u.statuses.sort();
      u.files.sort();
    }
  }
  return report;
}

/** A platform-origin answer under DASHBOARD_PREFIX is the dashboard API's, at the spec's path. */
function dashboardLine(line: ExchangeLine): Omit<ExchangeLine, "area"> & { area?: ExchangeLine["area"] | "dashboard" } {
  const under = line.area !== "envd" && (line.path === DASHBOARD_PREFIX || line.path.startsWith(`${DASHBOARD_PREFIX}/`));
  return under ? { ...line, area: "dashboard", path: line.path.slice(DASHBOARD_PREFIX.length) || "/" } : line;
}

/** Counts one answer of `operation` in `uses`. */
function use(uses: Record<string, OperationUse>, operation: string, status: number, file: string): void {
  const u = (uses[operation] ??= { statuses: [], files: [], notServed: false });
  if (!u.statuses.includes(status)) u.statuses.push(status);
  if (!u.files.includes(file)) u.files.push(file);
  if (status === NOT_SERVED_STATUS) u.notServed = true;
}

/** `/v2/sandboxes/i3k.../connect` → `/v2/sandboxes/{id}/connect`: sandbox IDs, UUIDs and upload tokens folded. */
function foldIDs(path: string): string {
  return path
    .replace(/^\/_uploads\/[^/]+$/, "/_uploads/{token}")
    .replace(/\/(i[a-z0-9]{20}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?=\/|$)/gi, "/{id}");
}

function* readLines(dir: string): Generator<ExchangeLine> {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".ndjson")).sort();
  } catch {
    return;
  }
  for (const name of names) {
    for (const text of readFileSync(join(dir, name), "utf8").split("\n")) {
      // A process killed mid-write can leave a torn last line; it is not an answer anyone received.
      if (text.trim() === "") continue;
      try {
        yield JSON.parse(text) as ExchangeLine;
      } catch {
        continue;
      }
    }
  }
}

/** Where the last checked run's report is kept, for `npm run contract` (outside the tracked tree). */
export const LAST_REPORT = join(__dirname, "..", "..", "node_modules", ".cache", "pulumi-sandbox", "contract-report.json");

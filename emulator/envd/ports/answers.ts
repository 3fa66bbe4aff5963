/**
 * The sandbox proxy's own answers, as the service's proxy sends them (infra:
 * packages/shared/pkg/proxy/template/*.go): a JSON body `{sandboxId, message, [port,] code}` for a
 * program, an HTML page for a browser. Which one is the service's `wantsHtml` rule
 * (template/template.go): an `Accept` that asks for JSON and not HTML, or a request made by page
 * scripts (`Sec-Fetch-Mode` other than `navigate`, or `X-Requested-With`), gets JSON; otherwise a
 * browser's `User-Agent` gets the page. The pages are the emulator's own wording of the same facts.
 * See docs/service.md#sandbox-ports.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

/** Why the proxy answers itself instead of the sandbox's server. */
export type ProxyRefusal =
  | { kind: "notFound" }
  | { kind: "portClosed"; port: number }
  | { kind: "tokenMissing" }
  | { kind: "tokenInvalid" }
  | { kind: "resumeDenied" }
  | { kind: "teamLimit"; message: string };

/** The header a sandbox without public traffic needs on every request to its ports. */
export const TRAFFIC_TOKEN_HEADER = "e2b-traffic-access-token";

const BROWSER = /mozilla|chrome|safari|firefox|edge|opera|msie/i;

function header(req: IncomingMessage, name: string): string {
  const value = req.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? "";
}

/** The service's choice between its HTML page and its JSON body. */
export function wantsHtml(req: IncomingMessage): boolean {
  const accept = header(req, "accept").toLowerCase();
  if (accept.includes("application/json") && !accept.includes("text/html")) return false;
  const mode = header(req, "sec-fetch-mode").toLowerCase();
  if (["cors", "no-cors", "same-origin", "websocket"].includes(mode)) return false;
  if (mode !== "navigate" && header(req, "x-requested-with") !== "") return false;
  return BROWSER.test(header(req, "user-agent"));
}

interface Answer {
  status: number;
  title: string;
  /** The JSON body's fields after `sandboxId`, in the service's order. */
  fields: Record<string, unknown>;
  /** The page's sentence (plain text; escaped when written). */
  sentence: string;
}

function answerOf(sandboxID: string, refusal: ProxyRefusal): Answer {
  const tokenMessage = (what: string) => `Sandbox is secured with traffic access token. ${what}`;
  switch (refusal.kind) {
    case "notFound":
      return { status: 502, title: "Sandbox Not Found", fields: { message: "The sandbox was not found", code: 502 }, sentence: `The sandbox ${sandboxID} was not found.` };
    case "portClosed": {
      const { port } = refusal;
      const fields = { message: "The sandbox is running but port is not open", port, code: 502 };
      return { status: 502, title: "Closed Port Error", fields, sentence: `The sandbox ${sandboxID} is running, but nothing in it serves port ${port}.` };
    }
    case "tokenMissing": {
      const message = tokenMessage(`Token header '${TRAFFIC_TOKEN_HEADER}' is missing`);
      return { status: 403, title: "Missing Traffic Access Token", fields: { message, code: 403 }, sentence: `The sandbox ${sandboxID} needs its traffic access token in the header "${TRAFFIC_TOKEN_HEADER}", which this request lacks.` };
    }
    case "resumeDenied": {
      // infra: packages/shared/pkg/proxy/template/sandbox_resume_permission_denied.go (auto-resume refused).
      const message = "This sandbox can't be resumed with the credentials provided. Check your access token and try again.";
      return { status: 403, title: "Sandbox Resume Denied", fields: { message, code: 403 }, sentence: `The sandbox ${sandboxID} is paused and cannot be resumed with the credentials this request carries.` };
    }
    case "teamLimit":
      // infra: packages/shared/pkg/proxy/template/team_sandbox_limit.go: an auto-resume past the team's
      // limit, with the API's own message.
      return { status: 429, title: "Sandbox Limit Reached", fields: { message: refusal.message, code: 429 }, sentence: refusal.message };
    case "tokenInvalid": {
      const message = tokenMessage(`Provided token in header '${TRAFFIC_TOKEN_HEADER}' is invalid`);
      return { status: 403, title: "Invalid Traffic Access Token", fields: { message, code: 403 }, sentence: `The token in the header "${TRAFFIC_TOKEN_HEADER}" is not the traffic access token of the sandbox ${sandboxID}.` };
    }
  }
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escape = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

function page(answer: Answer, host: string): string {
  return [
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="UTF-8">',
    `<title>${escape(answer.title)}</title>\n</head>\n<body>\n<main>`,
    `<h1>${escape(answer.title)}</h1>\n<p>${escape(answer.sentence)}</p>\n<p><code>${escape(host)}</code></p>`,
    "</main>\n</body>\n</html>\n",
  ].join("\n");
}

/** Sends the proxy's answer for `refusal`: HTML to a browser, JSON to anything else. */
export function sendRefusal(req: IncomingMessage, res: ServerResponse, sandboxID: string, refusal: ProxyRefusal): void {
  const answer = answerOf(sandboxID, refusal);
  const html = wantsHtml(req);
  const body = html ? page(answer, header(req, "host")) : JSON.stringify({ sandboxId: sandboxID, ...answer.fields });
  const type = html ? "text/html; charset=utf-8" : "application/json; charset=utf-8";
  res.writeHead(answer.status, { "content-type": type, "content-length": Buffer.byteLength(body) });
  res.end(body);
}

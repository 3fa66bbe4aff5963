/**
 * The sandbox proxy's own answers, as the service's proxy sends them (infra:
 * packages/shared/pkg/proxy/template/*.go): a JSON body `{sandboxId, message, [port,] code}` for a
 * program, an HTML page for a browser. Which one is the service's `wantsHtml` rule
 * (template/template.go): an `Accept` that asks for JSON and not HTML, or a request made by page
 * scripts (`Sec-Fetch-Mode` other than `navigate`, or `X-Requested-With`), gets JSON; otherwise a
 * browser's `User-Agent` gets the page. The pages say what the service's say (template/browser_*.html),
 * without its styling and logo.
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
  /** The page's `error-message` paragraph, as HTML (its values escaped). */
  message: string;
  /** What the page has after its header, as HTML (the closed port's details). */
  more?: string;
}

const LOGS_LINK = "https://e2b.dev/docs/sdk-reference/cli/v1.0.9/sandbox#e2b-sandbox-logs";

/** The proxy's answers, worded as infra's packages/shared/pkg/proxy/template/*.go and browser_*.html word them. */
function answerOf(sandboxID: string, host: string, refusal: ProxyRefusal): Answer {
  const tokenMessage = (what: string) => `Sandbox is secured with traffic access token. ${what}`;
  const sandbox = `The sandbox <span class="highlight" id="sandbox-id">${escape(sandboxID)}</span>`;
  const tokenHeader = `<span class="highlight">"${TRAFFIC_TOKEN_HEADER}"</span>`;
  switch (refusal.kind) {
    case "notFound":
      return { status: 502, title: "Sandbox Not Found", fields: { message: "The sandbox was not found", code: 502 }, message: `${sandbox} wasn't found.` };
    case "portClosed":
      return portClosed(sandbox, host, refusal.port);
    case "tokenMissing": {
      const message = tokenMessage(`Token header '${TRAFFIC_TOKEN_HEADER}' is missing`);
      return { status: 403, title: "Missing Traffic Access Token", fields: { message, code: 403 }, message: `${sandbox} enforces traffic access token. Token header ${tokenHeader} is missing.` };
    }
    case "tokenInvalid": {
      const message = tokenMessage(`Provided token in header '${TRAFFIC_TOKEN_HEADER}' is invalid`);
      return { status: 403, title: "Invalid Traffic Access Token", fields: { message, code: 403 }, message: `${sandbox} enforces traffic access token. Token header ${tokenHeader} is invalid.` };
    }
    case "resumeDenied": {
      // sandbox_resume_permission_denied.go: an auto-resume refused for want of the sandbox's credentials.
      const message = "This sandbox can't be resumed with the credentials provided. Check your access token and try again.";
      return { status: 403, title: "Unable to Resume Sandbox", fields: { message, code: 403 }, message: `${sandbox} can't be resumed with the credentials provided. Check your access token and try again.` };
    }
    case "teamLimit":
      // team_sandbox_limit.go: an auto-resume past the team's limit, with the API's own message.
      return { status: 429, title: "Sandbox Limit Reached", fields: { message: refusal.message, code: 429 }, message: escape(refusal.message) };
  }
}

/** port_closed.go; the page's `&#39s` (no semicolon) is the template's own. */
function portClosed(sandbox: string, host: string, port: number): Answer {
  const more = [
    '    <div class="error-details">',
    `        <span class="sandbox-url">${escape(host)}</span>`,
    `        <div class="error-code">Connection refused on port <span class="highlight" id="port-number-code">${port}</span></div>`,
    "    </div>",
    '    <p class="help-text">Please ensure that your service is properly configured and running on the specified port.</p>',
    `    <a class="debug-link" href="${LOGS_LINK}">Check the sandbox logs for more information →</a>`,
  ].join("\n");
  return {
    status: 502, title: "Closed Port Error", fields: { message: "The sandbox is running but port is not open", port, code: 502 },
    message: `${sandbox} is running but there&#39s no service running on port <span class="highlight" id="port-number">${port}</span>.`, more,
  };
}

/** The escapes of Go's html/template for text. */
const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;", "\0": "\uFFFD" };
const escape = (text: string) => text.replace(/[&<>"'\0]/g, (c) => ESCAPES[c] ?? c);

/** The service's page (its styling and remote logo image left out): from `<html` to `</html>`, nothing after. */
function page(answer: Answer): string {
  return [
    '<html lang="en">',
    "<head>",
    '    <meta charset="UTF-8">',
    '    <meta name="viewport" content="width=device-width,initial-scale=1">',
    `    <title>${answer.title}</title>`,
    "</head>",
    "<body>",
    '<main class="error-card">',
    '    <div class="error-header">',
    `        <h1 class="error-title">${answer.title}</h1>`,
    `        <p class="error-message">${answer.message}</p>`,
    "    </div>",
    ...(answer.more === undefined ? [] : [answer.more]),
    "</main>",
    "</body>",
    "</html>",
  ].join("\n");
}

/** Sends the proxy's answer for `refusal`: HTML to a browser, JSON to anything else. */
export function sendRefusal(req: IncomingMessage, res: ServerResponse, sandboxID: string, refusal: ProxyRefusal): void {
  const answer = answerOf(sandboxID, header(req, "host"), refusal);
  const html = wantsHtml(req);
  const body = html ? page(answer) : JSON.stringify({ sandboxId: sandboxID, ...answer.fields });
  const type = html ? "text/html; charset=utf-8" : "application/json; charset=utf-8";
  res.writeHead(answer.status, { "content-type": type, "content-length": Buffer.byteLength(body) });
  res.end(body);
}

/**
 * Opens a URL as a user would, with curl: curl, like browsers, resolves `*.localhost` to this machine
 * (RFC 6761), which Node's resolver here does not, and the emulator's port URLs are such names.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The status and body of a GET of `url`, with `headers`; `caFile`: the CA an https URL's certificate is checked against. */
export async function openUrl(url: string, headers: Record<string, string> = {}, caFile?: string): Promise<{ status: number; body: string }> {
  const ca = caFile === undefined ? [] : ["--cacert", caFile];
  const args = ["-sS", "--max-time", "20", "-w", "\n%{http_code}", ...ca, ...Object.entries(headers).flatMap(([k, v]) => ["-H", `${k}: ${v}`]), url];
  const { stdout } = await run("curl", args);
  const at = stdout.lastIndexOf("\n");
  return { status: Number(stdout.slice(at + 1)), body: stdout.slice(0, at) };
}

/**
 * A provisioning command that leaves a server on `port` answering `text`, in the background, and
 * returns once it listens (at most 30 s): a loaded machine takes a while to start node, and a
 * request before then meets a closed port, as it would on the service after its short retries.
 */
export const serveCommand = (port: number, text: string): string =>
  `nohup node -e "require('http').createServer((q,s)=>s.end('${text}')).listen(${port})" >/dev/null 2>&1 & ` +
  `for i in $(seq 300); do (exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && break; sleep 0.1; done`;

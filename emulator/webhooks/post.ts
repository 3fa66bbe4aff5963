/**
 * One delivery attempt: a POST of the raw body to the webhook's URL, on a connection of its own
 * (no pool outlives the emulator), no redirect followed. It resolves with the answer's status, or
 * rejects when the URL does not answer within `timeoutMs` or the connection fails.
 */
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";

export function postOnce(url: string, body: string, headers: Record<string, string>, timeoutMs: number, stop: AbortSignal): Promise<number> {
  const target = new URL(url);
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  const signal = AbortSignal.any([stop, AbortSignal.timeout(timeoutMs)]);
  return new Promise((resolve, reject) => {
    const req = send(target, { method: "POST", agent: false, signal, headers: { ...headers, "content-length": String(Buffer.byteLength(body)) } }, (res) => {
      // The status is the answer; the body is read to its end only so the connection closes cleanly.
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", reject);
    });
    req.on("error", (err) => reject(signal.aborted && !stop.aborted ? new Error(`no answer within ${timeoutMs} ms`) : err));
    req.end(body);
  });
}

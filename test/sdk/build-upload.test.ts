/**
 * The upload of a COPY step's archive (TemplateBuilds.upload) against a real peer standing for the
 * object store: the presigned URL gets no credential, an explicit Content-Length, the exact bytes,
 * and a repeat after a 503 (a PUT of the same bytes is safe); a refusal is an error that names the
 * operation but not the URL, whose token is a credential of its own.
 */
import { afterEach, expect, test } from "vitest";
import { PlatformClient } from "../../sdk/platform/client";
import { failure } from "./expect-error";
import { startPeer, type Peer } from "./http-peer";

let peer: Peer | undefined;
let sdk: PlatformClient | undefined;
afterEach(async () => {
  await sdk?.close();
  await peer?.close();
});

const client = () => new PlatformClient({ apiUrl: "http://127.0.0.1:9", apiKey: "e2b_0123456789abcdef", retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 } }, {});

test("sends the bytes with their length and no credential, and repeats after a 503", async () => {
  peer = await startPeer((_req, res, n) => {
    res.writeHead(n === 1 ? 503 : 200);
    res.end();
  });
  sdk = client();
  const archive = Buffer.from("not really gzip, but bytes all the same");
  await sdk.builds.upload(`${peer.url}/bucket/object?X-Goog-Signature=secret-token`, archive);
  expect(peer.requests).toHaveLength(2);
  const seen = peer.requests[1]!;
  expect(seen).toMatchObject({ method: "PUT", url: "/bucket/object?X-Goog-Signature=secret-token", body: archive.toString() });
  expect(seen.headers["content-length"]).toBe(String(archive.length));
  expect(seen.headers["content-type"]).toBe("application/gzip");
  expect(seen.headers["transfer-encoding"]).toBeUndefined();
  expect(seen.headers["x-api-key"]).toBeUndefined();
  expect(seen.headers.authorization).toBeUndefined();
});

test("a refusal names the operation, never the signed URL", async () => {
  peer = await startPeer((_req, res) => {
    res.writeHead(403, { "content-type": "application/xml" });
    res.end("<Error><Code>AccessDenied</Code></Error>");
  });
  sdk = client();
  const err = await failure(sdk.builds.upload(`${peer.url}/o?sig=secret-token`, Buffer.from("x")));
  expect(err).toMatchObject({ status: 403, code: "permission_denied" });
  expect(err.message).toBe("PUT (file upload URL) failed (403 permission_denied): <Error><Code>AccessDenied</Code></Error>");
});

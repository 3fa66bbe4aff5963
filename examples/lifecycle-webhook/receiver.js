// A webhook receiver with no dependencies: `WEBHOOK_SECRET=... node receiver.js [port]`. It checks each
// delivery's signature as the service's docs say, then logs the lifecycle events of the sandboxes
// tagged `app: lifecycle-webhook-demo` (the ones ./index.ts makes); any other sandbox's are acknowledged
// and skipped. A delivery whose signature does not match gets 401 and is never logged.
"use strict";
const { createHash, timingSafeEqual } = require("node:crypto");
const { createServer } = require("node:http");

const SECRET = process.env.WEBHOOK_SECRET;
const PORT = Number(process.argv[2] ?? process.env.PORT ?? 8787);
const APP = "lifecycle-webhook-demo";
if (!SECRET) {
  console.error("set WEBHOOK_SECRET to the stack's webhookSecret");
  process.exit(2);
}

/**
 * The `e2b-signature` of a body: SHA-256 over the secret followed by the raw body bytes, in base64
 * without the trailing `=`. Hash the bytes as received: a re-serialized JSON body signs differently.
 */
function signature(secret, rawBody) {
  return createHash("sha256").update(secret, "utf8").update(rawBody).digest("base64").replace(/=+$/, "");
}

/** Compared in constant time, so a caller cannot learn the signature a byte at a time. */
function verified(rawBody, header) {
  if (typeof header !== "string") return false;
  const expected = Buffer.from(signature(SECRET, rawBody));
  const given = Buffer.from(header.trim().replace(/=+$/, ""));
  return expected.length === given.length && timingSafeEqual(expected, given);
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    const raw = Buffer.concat(chunks);
    if (req.method !== "POST" || req.headers["e2b-signature-version"] !== "v1" || !verified(raw, req.headers["e2b-signature"])) {
      console.log(`refused a request: not a v1 delivery signed with WEBHOOK_SECRET (delivery ${req.headers["e2b-delivery-id"] ?? "none"})`);
      res.writeHead(401).end();
      return;
    }
    const event = JSON.parse(raw.toString("utf8"));
    // A retry carries the same event (same `id`) under a new delivery ID: answer it, log it once.
    if (event.eventData?.sandbox_metadata?.app === APP && !seen.has(event.id)) {
      seen.add(event.id);
      console.log(`verified ${event.type} of sandbox ${event.sandboxId} at ${event.timestamp} (event ${event.id}, delivery ${req.headers["e2b-delivery-id"]})`);
    }
    res.writeHead(204).end();
  });
});
const seen = new Set();

server.listen(PORT, "127.0.0.1", () => console.log(`listening on http://127.0.0.1:${server.address().port}/events`));

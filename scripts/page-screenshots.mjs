#!/usr/bin/env node
// Regenerates the screenshots of the emulator's page in docs/images/ (docs/emulator.md shows them):
// an emulator from dist/ with a template, a volume with a file, a sandbox serving a port with the
// provider's stack markers, a snapshot, a secret and a webhook; then Debian's chromium (playwright-core,
// `executablePath`) opens each view through the ready line's signed-in link. Needs `npm run build` and
// /usr/bin/chromium (`apt-get install chromium`). Usage: node scripts/page-screenshots.mjs
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Sandbox, Template, Volume } from "e2b";
import { chromium } from "playwright-core";

const require = createRequire(import.meta.url);
const { createEmulator } = require("../dist/emulator/index.js");
const out = join(import.meta.dirname, "..", "docs", "images");

async function populate(emu) {
  const opts = { apiKey: emu.apiKey, apiUrl: emu.apiUrl, sandboxUrl: emu.sandboxUrl };
  const headers = { "X-API-Key": emu.apiKey, "content-type": "application/json" };
  const post = (path, body) => fetch(`${emu.apiUrl}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
  await post("/events/webhooks", { name: "lifecycle", url: "http://127.0.0.1:9/hook", events: ["sandbox.lifecycle.created"], signatureSecret: "screenshot-signature-secret" });
  await post("/secrets", { name: "DATABASE_URL", value: "postgres://never-shown", metadata: { owner: "quickstart" } });
  const built = await Template.build(Template().fromImage("e2bdev/base").setEnvs({ TOOLCHAIN: "v1" }).runCmd("echo 'base image ready'"), "quickstart", opts);
  const volume = await Volume.create("quickstart-data", opts);
  await volume.writeFile("/last-provisioned", `${new Date().toISOString()}\n`, opts);
  const metadata = { purpose: "quickstart", "pulumi-sandbox.stack": "organization/quickstart/local", "pulumi-sandbox.resource": "quickstart", "pulumi-sandbox.nonce": "quickstart-nonce" };
  const sandbox = await Sandbox.create(built.templateId, { ...opts, timeoutMs: 600_000, metadata, volumeMounts: { "/home/user/data": volume } });
  // The claim a finished create leaves (docs/reruns-and-identity.md): "By stack" says "a finished create".
  await sandbox.files.makeDir("/tmp/.pulumi-sandbox-claims/quickstart-nonce");
  await sandbox.files.write("/home/user/provisioned.txt", "provisioned by pulumi\n");
  await sandbox.commands.run(`python3 -m http.server 8000 --directory /home/user`, { background: true });
  // A provisioning command: its output shows on the page, its env by name only.
  await sandbox.commands.run("echo 'migrating the database'; echo 'applied 3 migrations'; echo 'warning: no seed data' >&2", { envs: { DATABASE_URL: "postgres://never-shown" } });
  await new Promise((r) => setTimeout(r, 1000));
  await post(`/sandboxes/${sandbox.sandboxId}/snapshots`, { name: "quickstart-snapshot" });
  return { templateID: built.templateId, volumeID: volume.volumeId, sandboxID: sandbox.sandboxId };
}

async function main() {
  const emu = await createEmulator({ buildDelayMs: 300, webhookRetryDelaysMs: [10], images: "host" });
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
  try {
    const ids = await populate(emu);
    const page = await browser.newPage({ viewport: { width: 1100, height: 720 } });
    await page.goto(emu.pageUrl);
    mkdirSync(out, { recursive: true });
    const views = [["overview", "#/", "table"], ["sandbox", `#/sandboxes/${ids.sandboxID}`, [".files table", "#metrics-latest", "details.process"]], ["template", `#/templates/${ids.templateID}`, "#build-log[data-status]"],
      ["volume", `#/volumes/${ids.volumeID}`, ".files table"], ["stacks", "#/stacks", "table"], ["snapshots", "#/snapshots", "table"], ["secrets", "#/secrets", "table"], ["webhooks", "#/webhooks", "table"]];
    for (const [name, hash, ready] of views) {
      await page.evaluate(`void (location.hash = ${JSON.stringify(hash)})`);
      for (const selector of [ready].flat()) await page.waitForSelector(selector);
      // The sandbox view is long (its processes, metrics, log and files): it is taken whole, one command's output open.
      if (name === "sandbox") await page.locator("details.process", { hasText: "migrating" }).locator("summary").click();
      await page.waitForTimeout(150);
      await page.screenshot({ path: join(out, `page-${name}.png`), fullPage: name === "sandbox" });
      console.log(`docs/images/page-${name}.png`);
    }
  } finally {
    await browser.close();
    await emu.close();
  }
}

main().catch((err) => {
  console.error(`page-screenshots failed: ${err.stack ?? err.message}`);
  process.exit(1);
});

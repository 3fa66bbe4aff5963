/**
 * The emulator's page in a real browser (Debian's chromium, driven by playwright-core): signed in by
 * the ready line's link, it finds a template with its build log, a volume with the file written on
 * it, a running sandbox with a link to its port that answers, its processes with the output of the
 * commands run through the API, and its metrics; a build started meanwhile shows its
 * log lines while it runs; killing the sandbox from the page kills it. No answer the page received
 * holds the API key, the access token, the sandbox's envd token, the volume's token, a secret's
 * value or a command's secret env value; a state-changing request from another origin is refused, and the official SDK (no Origin)
 * is not.
 */
import { existsSync } from "node:fs";
import { Sandbox, Template, Volume, type ConnectionOpts } from "e2b";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmulator, type Emulator } from "../../emulator";
import { serve } from "./ports-helpers";

const CHROMIUM = "/usr/bin/chromium";
const SECRET_VALUE = "page-test-secret-value-7f3a9c";
/** A command's secret env value: its name shows on the page, the value never (in env, args or output). */
const PROCESS_SECRET = "page-test-process-secret-41d2e8";

let emu: Emulator;
let opts: ConnectionOpts;
let browser: Browser;
let page: Page;
let sandbox: Sandbox;
let volume: Volume;
let templateID: string;
const bodies: { url: string; text: string }[] = [];
/** The sandbox's envd and traffic tokens and the volume's: credentials the page must never receive. */
const envdTokens: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)`);
  emu = await createEmulator({ buildDelayMs: 200 });
  opts = { apiKey: emu.apiKey, apiUrl: emu.apiUrl, sandboxUrl: emu.sandboxUrl };
  const built = await Template.build(Template().fromImage("e2bdev/base").runCmd("echo hello from the build"), "page-quick", opts);
  templateID = built.templateId;
  volume = await Volume.create("page-data", opts);
  await volume.writeFile("/hello.txt", "written on the volume", opts);
  // The domain makes the SDK's getHost give the emulator's `{port}-{id}.localhost:{port}` hosts.
  sandbox = await Sandbox.create(templateID, { ...opts, domain: `localhost:${new URL(emu.apiUrl).port}`, timeoutMs: 120_000, metadata: { "pulumi-sandbox.stack": "org/proj/dev", "pulumi-sandbox.resource": "quickstart", "pulumi-sandbox.nonce": "page-nonce" }, volumeMounts: { "/home/user/data": volume } });
  await serve(sandbox, 8000, "from-the-sandbox");
  const held = emu.state.sandboxes().find((s) => s.sandboxID === sandbox.sandboxId)!;
  envdTokens.push(...[held.envdAccessToken, held.trafficAccessToken, volume.token].filter((t): t is string => typeof t === "string" && t !== ""));
  expect(envdTokens.length).toBeGreaterThan(0);
  const secret = await fetch(`${emu.apiUrl}/secrets`, { method: "POST", headers: { "X-API-Key": emu.apiKey, "content-type": "application/json" }, body: JSON.stringify({ name: "page-secret", value: SECRET_VALUE }) });
  expect(secret.status).toBe(201);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  page = await browser.newPage();
  page.on("response", (res) => void res.text().then((text) => bodies.push({ url: res.url(), text }), () => undefined));
  await page.goto(emu.pageUrl);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await sandbox?.kill().catch(() => undefined);
  await emu?.close();
});

/** The page's processes route, as the page reads it. */
const pageProcesses = () => fetch(`${emu.apiUrl}/_emulator/page/sandboxes/${sandbox.sandboxId}/processes`, { headers: { "X-API-Key": emu.apiKey } }).then((res) => res.json());
const show = (hash: string) => page.evaluate(`void (location.hash = ${JSON.stringify(hash)})`);

describe("the emulator's page", () => {
  it("opens signed in from the ready line's link, the key in the fragment only, and lists the sandbox, template and volume", async () => {
    expect(emu.pageUrl).toBe(`${emu.apiUrl}/_emulator/ui/#key=${emu.apiKey}`);
    await page.getByRole("link", { name: sandbox.sandboxId }).waitFor();
    expect(page.url()).not.toContain(emu.apiKey); // the link's fragment is dropped once read
    await page.getByRole("link", { name: templateID }).waitFor();
    await page.getByRole("link", { name: volume.volumeId }).waitFor();
  });

  it("shows the template with its build log", async () => {
    await page.getByRole("link", { name: templateID }).click();
    await expect.poll(() => page.locator("#build-log").getAttribute("data-status")).toBe("ready");
    expect(await page.locator("#build-log").textContent()).toContain("hello from the build");
    // Tags and their history: the build took the default tag when it finished.
    await page.getByRole("cell", { name: "default", exact: true }).waitFor();
    expect(await page.getByRole("row", { name: /^default / }).textContent()).toContain(emu.state.templates().find((t) => t.templateID === templateID)!.builds[0]!.buildID);
  });

  it("shows the volume with the file written on it", async () => {
    await show(`#/volumes/${volume.volumeId}`);
    await page.getByRole("button", { name: "hello.txt" }).click();
    await expect.poll(() => page.locator(".file-text").textContent()).toBe("written on the volume");
  });

  it("shows the running sandbox, its metadata and a link to its port that answers", async () => {
    await show(`#/sandboxes/${sandbox.sandboxId}`);
    await page.locator("dl").getByText("running", { exact: true }).waitFor();
    await page.getByText("pulumi-sandbox.stack=org/proj/dev").waitFor();
    expect(await page.locator("#sandbox-log").textContent()).toContain("Sandbox created");
    const portLink = page.locator("#ports a", { hasText: "8000" });
    const url = await portLink.getAttribute("href");
    expect(url).toBe(`http://8000-${sandbox.sandboxId}.localhost:${new URL(emu.apiUrl).port}/`);
    const tab = await browser.newPage();
    await tab.goto(url!);
    expect(await tab.textContent("body")).toContain("from-the-sandbox");
    await tab.close();
    await page.getByRole("button", { name: "data" }).click();
    await page.getByRole("button", { name: "hello.txt" }).waitFor();
  });

  it("groups the sandbox under the stack its markers name, and tells what an interrupted run left from what a finished create made", async () => {
    await show("#/stacks");
    await page.getByRole("heading", { name: "org/proj/dev" }).waitFor();
    await page.getByRole("cell", { name: "quickstart", exact: true }).waitFor();
    const madeBy = () => page.getByRole("row", { name: new RegExp(`^quickstart ${sandbox.sandboxId}`) }).locator("td").last().textContent();
    // No claim yet: what a killed `up` leaves (its create never finished).
    await expect.poll(madeBy).toMatch(/^an interrupted run: no create finished/);
    await sandbox.files.makeDir("/tmp/.pulumi-sandbox-claims/page-nonce");
    await expect.poll(madeBy, { timeout: 10_000 }).toBe("a finished create"); // the view is read again every 3 s
    // A volume whose create never ended holds the provider's pending mark at its root.
    const left = await Volume.create("page-left", opts);
    await left.writeFile("/.pulumi-sandbox-pending", "page-nonce", opts);
    await page.getByRole("heading", { name: "Volumes an interrupted create left (1)" }).waitFor();
    await page.getByRole("link", { name: left.volumeId }).waitFor();
    await volume.writeFile("/.pulumi-sandbox-pending", "other", opts);
    await page.getByRole("heading", { name: "Volumes an interrupted create left (2)" }).waitFor();
    await volume.remove("/.pulumi-sandbox-pending", opts);
    await Volume.destroy(left.volumeId, opts);
    await page.getByRole("heading", { name: "Volumes an interrupted create left (0)" }).waitFor();
  });

  it("shows the sandbox's processes with their state and the output of the commands run through the API, and its metrics", async () => {
    await sandbox.commands.run("echo page-known-line; echo page-on-stderr >&2; echo \"token is $PAGE_TOKEN\"", { envs: { PAGE_TOKEN: PROCESS_SECRET } });
    await sandbox.commands.run("sleep 600", { background: true, envs: { PAGE_TOKEN: PROCESS_SECRET } });
    await show(`#/sandboxes/${sandbox.sandboxId}`);
    const done = page.locator("details.process", { hasText: "page-known-line" });
    await done.locator("summary").click();
    expect(await done.locator("summary").textContent()).toMatch(/^\d+ exited 0 \/bin\/bash -l -c echo page-known-line/);
    // stdout and stderr are two pipes: how their lines interleave is up to the kernel.
    expect((await done.locator(".out-stdout").allTextContents()).join("")).toBe("page-known-line\ntoken is ***\n");
    expect(await done.locator(".out-stderr").textContent()).toBe("page-on-stderr\n");
    expect(await done.locator("p.muted").textContent()).toContain("env: PAGE_TOKEN (names only)");
    const sleeping = page.locator("details.process", { hasText: "sleep 600" });
    expect(await sleeping.getAttribute("data-state")).toBe("running");
    expect(await sleeping.locator("summary").textContent()).toMatch(/^\d+ running \/bin\/bash -l -c sleep 600/);
    // Read again while the view is open: a command run now shows up, and the expanded one stays open.
    await sandbox.commands.run("echo page-later-line");
    await page.locator("details.process", { hasText: "page-later-line" }).waitFor({ timeout: 5000 });
    expect(await done.getAttribute("open")).toBe("");
    // The emulator's readings: 1.5 % CPU, a quarter of the memory, a tenth of the disk (emulator/routes/sandboxes.ts).
    const latest = await page.locator("#metrics-latest").textContent();
    expect(latest).toMatch(/^CPU1\.5 % of 2 vCPU memory256 MiB of 1024 MiB \(25\.0 %\) disk512 MiB of 5120 MiB \(10\.0 %\)reading.+ \(\d+ since it started\)$/);
    expect(await page.locator("#metrics table tr").count()).toBeGreaterThan(1);
  });

  it("keeps a command's output to its last 64 KiB", async () => {
    const long = "head -c 100000 /dev/zero | tr '\\0' a; echo; echo page-tail-end";
    const run = await sandbox.commands.run(long);
    expect(run.stdout.length).toBe(100_015);
    const { processes, outputTailBytes } = (await pageProcesses()) as { processes: { args: string[]; output: { text: string }[]; outputBytes: number; outputTruncated: boolean }[]; outputTailBytes: number };
    const newest = processes[0]!;
    expect([newest.args.at(-1), newest.outputBytes, newest.outputTruncated, outputTailBytes]).toEqual([long, 100_015, true, 65_536]);
    const text = newest.output.map((part) => part.text).join("");
    expect(text.length).toBe(65_536);
    expect(text.endsWith("a\npage-tail-end\n")).toBe(true);
  });

  it("remembers the last 20 commands that ended, and every one still running", async () => {
    await Promise.all(Array.from({ length: 21 }, (_, i) => sandbox.commands.run(`echo page-ring-${i}`)));
    const { processes } = (await pageProcesses()) as { processes: { state: string; args: string[] }[] };
    const ended = processes.filter((p) => p.state === "exited");
    // The 21 echoes ended last: the long command and the earlier ones are forgotten, the running ones stay.
    expect(ended.length).toBe(20);
    expect(ended.every((p) => /^echo page-ring-\d+$/.test(p.args.at(-1)!))).toBe(true);
    expect(processes.filter((p) => p.state === "running").map((p) => p.args.at(-1))).toContain("sleep 600");
  });

  it("streams a build's log lines while the build runs", async () => {
    emu.holdBuilds();
    const building = Template.build(Template().fromImage("e2bdev/base").runCmd("echo streamed line one").runCmd("echo streamed line two"), "page-live", opts);
    const live = await expect.poll(() => emu.state.templates().find((t) => t.aliases.includes("page-live")), { timeout: 10_000 }).toBeTruthy().then(() => emu.state.templates().find((t) => t.aliases.includes("page-live"))!);
    await show(`#/templates/${live.templateID}`);
    await expect.poll(() => page.locator("#build-log").textContent(), { timeout: 10_000 }).toContain("streamed line two");
    // The lines came while the build was still running: it is held until released below.
    expect(emu.state.templates().find((t) => t.templateID === live.templateID)!.builds.at(-1)!.status).toBe("building");
    expect(await page.locator("#build-log").getAttribute("data-status")).toBeNull();
    emu.releaseBuilds();
    await building;
    await expect.poll(() => page.locator("#build-log").getAttribute("data-status")).toBe("ready");
  });

  it("kills the sandbox from its view, as DELETE /sandboxes/{id} does", async () => {
    await show(`#/sandboxes/${sandbox.sandboxId}`);
    await page.locator("#kill-sandbox").click();
    await page.waitForFunction('location.hash === "#/"');
    const res = await fetch(`${emu.apiUrl}/sandboxes/${sandbox.sandboxId}`, { headers: { "X-API-Key": emu.apiKey } });
    expect(res.status).toBe(404);
    expect(emu.state.sandboxes().some((s) => s.sandboxID === sandbox.sandboxId)).toBe(false);
  });

  it("shows secrets by name, never their value", async () => {
    await show("#/secrets");
    await page.getByRole("cell", { name: "page-secret" }).waitFor();
  });

  it("received no answer holding the API key, the access token, an envd or volume token, or a secret's value", async () => {
    const tokens = [emu.apiKey, emu.accessToken, SECRET_VALUE, PROCESS_SECRET, ...envdTokens];
    expect(bodies.some(({ url }) => url.endsWith("/processes"))).toBe(true);
    expect(bodies.length).toBeGreaterThan(10);
    for (const { url, text } of bodies) for (const token of tokens) expect(text.includes(token), `${url} holds a credential`).toBe(false);
  });
});

describe("a state-changing request from a browser", () => {
  it("from another origin is refused; from the page's own origin, or with no Origin (the SDKs), it is not", async () => {
    const headers = { "X-API-Key": emu.apiKey, "content-type": "application/json" };
    const body = JSON.stringify({ name: "cross-site" });
    const other = await fetch(`${emu.apiUrl}/volumes`, { method: "POST", headers: { ...headers, Origin: "http://evil.example" }, body });
    expect(other.status).toBe(403);
    expect(((await other.json()) as { message: string }).message).toBe("cross-origin request refused: the emulator takes a POST only from its own page or from a client that sends no Origin (this one came from http://evil.example)");
    const site = await fetch(`${emu.apiUrl}/volumes`, { method: "POST", headers: { ...headers, "Sec-Fetch-Site": "cross-site" }, body });
    expect(site.status).toBe(403);
    expect((await Volume.list(opts)).map((v) => v.name)).not.toContain("cross-site");
    const own = await fetch(`${emu.apiUrl}/volumes`, { method: "POST", headers: { ...headers, Origin: emu.apiUrl, "Sec-Fetch-Site": "same-origin" }, body });
    expect(own.status).toBe(201);
  });
});

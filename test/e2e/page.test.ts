/**
 * The emulator's page after `up` of the quickstart through the real engine, in Debian's chromium
 * (playwright-core): it finds the template with its build log, the volume with the file the
 * provisioning wrote on it, the sandbox running with a link to its port that answers; killing the
 * sandbox from the page is drift that `pulumi refresh` finds. No answer the page received holds the
 * API key, the access token, the sandbox's envd token or the program's secret env var.
 */
import { Sandbox } from "e2b";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { inventoryOfStack, startStack, type E2eStack } from "./harness";

const CHROMIUM = "/usr/bin/chromium";
const secretEnv = "e2e-page-secret-token-41b7e0c3";
let s: E2eStack;
let browser: Browser;
let page: Page;
let out: Record<string, unknown>;
let envdToken: unknown;
const bodies: { url: string; text: string }[] = [];

beforeAll(async () => {
  s = await startStack("quickstart", "e2e-page");
  s.secret(secretEnv, "quickstart's demoToken");
  await s.ok("config", "set", "--secret", "demoToken", secretEnv);
  await s.ok("up", "--yes", "--skip-preview");
  out = await s.outputs();
  envdToken = inventoryOfStack(s.emulator).sandboxes[0]?.envdAccessToken;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  page = await browser.newPage();
  page.on("response", (res) => void res.text().then((text) => bodies.push({ url: res.url(), text }), () => undefined));
  await page.goto(s.emulator.pageUrl);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await s?.close();
});

const show = (hash: string) => page.evaluate(`void (location.hash = ${JSON.stringify(hash)})`);

describe("the page after up of the quickstart", () => {
  test("shows the template with its build log", async () => {
    await page.getByRole("link", { name: String(out.templateID) }).first().click();
    await expect.poll(() => page.locator("#build-log").getAttribute("data-status")).toBe("ready");
    expect(await page.locator("#build-log").textContent()).toContain("base image ready");
  });

  test("shows the volume with the file the provisioning wrote on it", async () => {
    const volume = inventoryOfStack(s.emulator).volumes.find((v) => v.name === out.volumeName)!;
    await show("#/");
    await page.getByRole("link", { name: volume.volumeID }).click();
    await page.getByRole("button", { name: "last-provisioned" }).click();
    await expect.poll(() => page.locator(".file-text").textContent()).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$/);
  });

  test("shows the sandbox running, with a link to the port its server listens on that answers", async () => {
    const opts = { apiKey: s.emulator.apiKey, apiUrl: s.emulator.apiUrl, sandboxUrl: s.emulator.sandboxUrl };
    const sandbox = await Sandbox.connect(String(out.sandboxID), opts);
    await sandbox.commands.run("python3 -m http.server 8000 --directory /home/user", { background: true });
    await show("#/");
    await page.getByRole("link", { name: String(out.sandboxID) }).click();
    await page.locator("dl").getByText("running", { exact: true }).waitFor(); // the fields, not a running process's state
    await expect.poll(async () => { await show(`#/sandboxes/${out.sandboxID}?${Date.now()}`); return page.locator("#ports a").count(); }, { timeout: 10_000 }).toBe(1);
    const tab = await browser.newPage();
    await tab.goto((await page.locator("#ports a").getAttribute("href"))!);
    expect(await tab.textContent("body")).toContain("provisioned.txt");
    await tab.close();
  });

  test("killing the sandbox from the page is drift that refresh finds", async () => {
    await page.locator("#kill-sandbox").click();
    await page.waitForFunction('location.hash === "#/"');
    expect(inventoryOfStack(s.emulator).sandboxes).toEqual([]);
    const refresh = await s.ok("refresh", "--yes", "--skip-preview");
    expect(refresh.output).toMatch(/- 1 deleted/);
  });

  test("received no answer holding the API key, the access token, an envd token or the program's secret", async () => {
    expect(envdToken).toEqual(expect.any(String));
    const tokens = [s.emulator.apiKey, s.emulator.accessToken, secretEnv, String(envdToken)];
    expect(bodies.length).toBeGreaterThan(5);
    for (const { url, text } of bodies) for (const token of tokens) expect(text.includes(token), `${url} holds a credential`).toBe(false);
  });
});

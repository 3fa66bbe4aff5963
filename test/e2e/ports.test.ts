/**
 * A sandbox's ports through the real engine: provisioning starts a server, the stack's output URL
 * answers through the emulator's proxy (opened with curl, as a user would), a second sandbox on the
 * same port answers its own content, a third's needs its traffic token (a secret output, leaked
 * nowhere), and a change of `ports` previews as an update and is one.
 */
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { openUrl } from "../provider/open-url";
import { callsSince, lastSeq, startStack, type E2eStack } from "./harness";

let s: E2eStack;

beforeAll(async () => {
  s = await startStack(join(__dirname, "fixtures", "web"), "e2e-ports");
}, 120_000);

afterAll(async () => {
  await s?.close();
});

test("each sandbox's URL answers from its own server; a change of ports is an in-place update with no call", async () => {
  await s.ok("up", "--yes", "--skip-preview");
  const first = await s.outputs();
  const [one, two, closed] = first.ids as string[];
  expect(first.urlOne).toBe(`http://8000-${one}.localhost:${new URL(s.emulator.sandboxUrl).port}`);
  expect(await openUrl(String(first.urlOne))).toEqual({ status: 200, body: "hello from one" });
  expect(await openUrl(String(first.urlTwo))).toEqual({ status: 200, body: "hello from two" });
  expect(first.trafficToken).toBe("[secret]");
  const token = s.secret(String((await s.outputs({ showSecrets: true })).trafficToken), "the closed sandbox's traffic token");
  expect(await openUrl(String(first.urlClosed))).toMatchObject({ status: 403 });
  expect(await openUrl(String(first.urlClosed), { "e2b-traffic-access-token": token })).toEqual({ status: 200, body: "hello from closed" });

  await s.ok("config", "set", "ports", "[8000, 8001]");
  const preview = (await s.ok("preview", "--diff")).output;
  expect(preview).toMatch(/~ 3 to update/);
  expect(preview).not.toMatch(/replace/);
  const since = lastSeq(s.emulator);
  const up = (await s.ok("up", "--yes", "--skip-preview")).output;
  expect(up).toMatch(/~ 3 updated/);
  expect(callsSince(s.emulator, since).filter((c) => !c.startsWith("GET "))).toEqual([]);
  const second = await s.outputs();
  expect(second.ids).toEqual([one, two, closed]);
  expect(Object.keys(second.urls as object)).toEqual(["8000", "8001"]);
  expect(await openUrl(String(second.urlTwo))).toEqual({ status: 200, body: "hello from two" });
}, 300_000);

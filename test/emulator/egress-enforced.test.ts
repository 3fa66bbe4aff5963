/**
 * A sandbox's network and its egress rules (emulator/envd/network/uplink.ts, egress-rules.ts),
 * against two HTTP servers on the host at public-looking addresses (test/fixtures/internet.ts):
 * reached by default; `denyOut` all with one `allowOut` reaches that one only; `allowInternetAccess:
 * false` reaches nothing; a PUT applies to new connections, an open one going on; the sandbox's own
 * root cannot undo the rules; the host's loopback and the private ranges stay out of reach. Each
 * "refused" is checked against a server that does answer otherwise.
 */
import { Sandbox } from "e2b";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startInternet, type Internet, type InternetHost } from "../fixtures/internet";
import type { EmulatorOptions } from "../../emulator";
import { useEmulator } from "./platform-helpers";

let internet: Internet;
/** The emulator's options, its egress names filled in once the hosts have their addresses. */
const options: EmulatorOptions = {};
beforeAll(async () => {
  internet = await startInternet();
  options.egressHosts = { "a.example.test": internet.hosts[0].ip, "b.example.test": internet.hosts[1].ip };
});
afterAll(() => internet?.close());
const env = useEmulator(options);

const hostA = (): InternetHost => internet.hosts[0];
const hostB = (): InternetHost => internet.hosts[1];

async function sandbox(network?: Record<string, unknown>, allowInternetAccess?: boolean): Promise<Sandbox> {
  return Sandbox.create("base", {
    apiKey: env.emu.apiKey, apiUrl: env.emu.apiUrl, sandboxUrl: env.emu.sandboxUrl, timeoutMs: 120_000,
    ...(network ? { network } : {}), ...(allowInternetAccess !== undefined ? { allowInternetAccess } : {}),
  } as Parameters<typeof Sandbox.create>[1]);
}

/** GET / of `ip:port` (with Host `host`) from inside the sandbox: the body's last line, or `refused` when nothing came back. */
async function get(sbx: Sandbox, ip: string, port: number, host = ip): Promise<string> {
  const script = `exec 3<>/dev/tcp/${ip}/${port} || exit 9; printf 'GET / HTTP/1.0\\r\\nHost: ${host}\\r\\n\\r\\n' >&3; tail -n 1 <&3`;
  const run = await sbx.commands.run(`timeout 5 bash -c "${script}"`).catch((err: { exitCode?: number; stdout?: string }) => err);
  return run.exitCode === 0 && run.stdout ? run.stdout : "refused";
}

const isolated = () => env.emu.isolation.mode === "namespaces";

describe("a sandbox's network", () => {
  test("with no rules it reaches both hosts; never the host's loopback (the emulator's own port) nor a private address", async () => {
    if (!isolated()) return;
    const sbx = await sandbox();
    try {
      expect(await get(sbx, hostA().ip, hostA().port)).toBe(`hello from ${hostA().ip}\n`);
      expect(await get(sbx, hostB().ip, hostB().port)).toBe(`hello from ${hostB().ip}\n`);
      const emulatorPort = Number(new URL(env.emu.apiUrl).port);
      expect(await get(sbx, "127.0.0.1", emulatorPort)).toBe("refused");
      expect(await get(sbx, "10.0.2.2", emulatorPort)).toBe("refused");
    } finally {
      await sbx.kill();
    }
  });

  test("denyOut 0.0.0.0/0 with allowOut [A] reaches A and not B; allowInternetAccess false reaches neither", async () => {
    if (!isolated()) return;
    const only = await sandbox({ denyOut: ["0.0.0.0/0"], allowOut: [hostA().ip] });
    const none = await sandbox(undefined, false);
    try {
      expect(await get(only, hostA().ip, hostA().port)).toBe(`hello from ${hostA().ip}\n`);
      expect(await get(only, hostB().ip, hostB().port)).toBe("refused");
      expect(await get(none, hostA().ip, hostA().port)).toBe("refused");
      expect(await get(none, hostB().ip, hostB().port)).toBe("refused");
    } finally {
      await Promise.all([only.kill(), none.kill()]);
    }
  });

  test("a PUT of new rules applies to new connections, as the service's; an open one goes on", async () => {
    if (!isolated()) return;
    const sbx = await sandbox();
    try {
      // An open connection to B: a request written to it after the PUT still gets its answer.
      const open = `exec 3<>/dev/tcp/${hostB().ip}/${hostB().port}; sleep 2; printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3; tail -n 1 <&3`;
      const before = sbx.commands.run(`bash -c "${open}"`);
      await new Promise((r) => setTimeout(r, 500));
      const put = await env.c.call("PUT", `/sandboxes/${sbx.sandboxId}/network`, { denyOut: [`${hostB().ip}/32`] });
      expect(put.status).toBe(204);
      expect(await get(sbx, hostB().ip, hostB().port)).toBe("refused");
      expect(await get(sbx, hostA().ip, hostA().port)).toBe(`hello from ${hostA().ip}\n`);
      expect((await before).stdout).toBe(`hello from ${hostB().ip}\n`);
    } finally {
      await sbx.kill();
    }
  });

  test("an allowOut domain: a connection to port 80 whose Host it matches is dialled by that name, whatever address the sandbox chose", async () => {
    if (!isolated()) return;
    const sbx = await sandbox({ denyOut: ["0.0.0.0/0"], allowOut: ["a.example.test"] });
    try {
      // At B's address, asking for a.example.test: the proxy dials a.example.test, which is A.
      expect(await get(sbx, hostB().ip, 80, "a.example.test")).toBe(`hello from ${hostA().ip}\n`);
      expect(await get(sbx, hostA().ip, 80, "b.example.test")).toBe("refused");
      expect(await get(sbx, hostA().ip, 80)).toBe("refused");
      // Only ports 80 and 443 are matched by name: another port is decided by address.
      expect(await get(sbx, hostA().ip, hostA().port, "a.example.test")).toBe("refused");
      const put = await env.c.call("PUT", `/sandboxes/${sbx.sandboxId}/network`, { denyOut: ["0.0.0.0/0"], allowOut: ["*.example.test"] });
      expect(put.status).toBe(204);
      expect(await get(sbx, hostA().ip, 80, "b.example.test")).toBe(`hello from ${hostB().ip}\n`);
      expect(await get(sbx, hostA().ip, 80, "example.test")).toBe("refused");
    } finally {
      await sbx.kill();
    }
  });

  test("the sandbox's root cannot undo them: its network namespace is the host's root's", async () => {
    if (!isolated()) return;
    const sbx = await sandbox({ denyOut: ["0.0.0.0/0"] });
    try {
      const undo = await sbx.commands.run("iptables -F OUTPUT; ip route del default; ip link set tap0 down", { user: "root" }).catch((err: { exitCode: number; stderr: string }) => err);
      expect(undo.exitCode).not.toBe(0);
      expect(await get(sbx, hostA().ip, hostA().port)).toBe("refused");
    } finally {
      await sbx.kill();
    }
  });
});

/**
 * What E2B's base image offers a start command runs in a sandbox of the emulator, through the
 * official SDK (`e2b`, unmodified): `sudo` for `user` without a password, and `python`, `python3`,
 * `node`, `npm`, `git`, `curl` found on the sandbox's own PATH, none of them through the host's
 * `/root` (emulator/envd/isolation/tools-layer.ts). The setuid helper behind sudo is out of reach
 * of the host's other accounts.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useOfficialSandbox } from "./official-helpers";

const bench = useOfficialSandbox();

describe("sudo", () => {
  it("runs a command as root for user, without a password, with root's environment and SUDO_USER", async () => {
    const r = await bench.sandbox.commands.run(`whoami; sudo whoami; sudo id -u; sudo sh -c 'echo "$HOME $USER $SUDO_USER"'`);
    expect(r.stdout).toBe("user\nroot\n0\n/root root user\n");
  });

  it("takes -u, -i and -E as commands use them", async () => {
    const r = await bench.sandbox.commands.run("sudo -u user whoami; sudo -i pwd; FOO=kept sudo -E sh -c 'echo $FOO'; FOO=gone sudo sh -c 'echo [$FOO]'");
    expect(r.stdout).toBe("user\n/root\nkept\n[]\n");
  });

  it("gives root what root may do in the sandbox: write under /root and /opt, chown to root", async () => {
    const r = await bench.sandbox.commands.run("echo x > /home/user/f && sudo chown root /home/user/f && stat -c %U /home/user/f && sudo mkdir -p /opt/tool && stat -c %U /opt/tool");
    expect(r.stdout).toBe("root\nroot\n");
  });

  it("names an unknown user as sudo does not know it, with exit 1", async () => {
    const r = await bench.sandbox.commands.run("sudo -u nosuch true").then(() => undefined, (e: unknown) => e);
    expect(r).toMatchObject({ exitCode: 1, stderr: "sudo: unknown user nosuch\n" });
  });

  it("its setuid helper cannot be reached by another account of the host", () => {
    const helper = join(bench.emu.dataDir, "sandboxes", ".system", "tools", "usr", "lib", "sandbox-emulator", "setpriv");
    // Through a shell: setpriv itself still holds root's capabilities until its own exec.
    const asNobody = spawnSync("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "--", "/bin/sh", "-c", '"$0" --reuid=0 -- /usr/bin/id -u', helper], { encoding: "utf8" });
    expect(asNobody.status).toBe(126);
    expect(asNobody.stderr).toMatch(/Permission denied/);
    expect(spawnSync("test", ["-u", helper]).status).toBe(0);
  });
});

describe("the base image's tools", () => {
  it("python, python3, node, npm, git and curl run, found in the sandbox's own dirs", async () => {
    const r = await bench.sandbox.commands.run("for t in python python3 node npm git curl; do command -v $t; done; python -c 'print(6*7)'; python3 -c 'print(1)'; node -e 'console.log(2)'; npm --version >/dev/null && git --version >/dev/null && curl --version >/dev/null && echo ok");
    const [paths, rest] = [r.stdout.split("\n").slice(0, 6), r.stdout.split("\n").slice(6).join("\n")];
    for (const p of paths) expect(p).toMatch(/^\/usr\/(local\/)?bin\//);
    expect(rest).toBe("42\n1\n2\nok\n");
  });
});

/**
 * The program the port bridge runs inside a sandbox's network namespace (with the emulator's own
 * node, as `node -e`): it listens on a Unix socket at a host path (a path socket belongs to the
 * file system, not to a network namespace, so the emulator outside can connect to it), reads one
 * line per connection, the port, dials that port on the sandbox's loopback (127.0.0.1, then ::1,
 * so a server bound to either, to `localhost`, `0.0.0.0` or `::` is reached) and answers one byte:
 * `1` then the two streams joined, or `0` and the end when nothing listens there.
 */
export const BRIDGE_SCRIPT = `"use strict";
const net = require("node:net");
const HOSTS = ["127.0.0.1", "::1"];
function dial(port, i, done) {
  if (i >= HOSTS.length) return done(undefined);
  const up = net.connect({ host: HOSTS[i], port });
  up.once("error", () => dial(port, i + 1, done));
  up.once("connect", () => { up.removeAllListeners("error"); done(up); });
}
net.createServer((client) => {
  let head = "";
  client.on("error", () => {});
  const onData = (data) => {
    head += data.toString("latin1");
    const nl = head.indexOf("\\n");
    if (nl < 0) return;
    client.off("data", onData);
    client.pause();
    const port = Number(head.slice(0, nl));
    if (!Number.isInteger(port) || port < 1 || port > 65535) return void client.end("0");
    dial(port, 0, (up) => {
      if (!up) return void client.end("0");
      up.on("error", () => client.destroy());
      client.on("error", () => up.destroy());
      client.on("close", () => up.destroy());
      up.on("close", () => client.destroy());
      client.write("1");
      client.pipe(up);
      up.pipe(client);
      client.resume();
    });
  };
  client.on("data", onData);
}).listen(process.argv[1], () => process.stdout.write("ready\\n"));
`;

/**
 * The name an egress connection asks for (emulator/envd/network/egress-hostname.ts): the SNI of a
 * ClientHello that Node's own TLS client wrote, and the Host of an HTTP request head, each read from
 * its first bytes as they come; and how an `allowOut` domain matches a name, as the service's proxy.
 */
import { createServer } from "node:net";
import { connect } from "node:tls";
import { describe, expect, test } from "vitest";
import { httpHostOf, matchesDomain, sniOf } from "../../emulator/envd/network/egress-hostname";

/** The first bytes a TLS client sends for `servername`, caught by a plain TCP server. */
function clientHello(servername: string | undefined): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => {
      socket.once("data", (chunk: Buffer) => {
        resolve(chunk);
        socket.destroy();
        server.close();
      });
    });
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      const tls = connect({ host: "127.0.0.1", port, ...(servername ? { servername } : {}), rejectUnauthorized: false });
      tls.on("error", () => undefined);
    });
    server.on("error", reject);
  });
}

describe("the name a connection asks for", () => {
  test("a ClientHello's server name, in lower case; 'more' while the record is short; none without the extension", async () => {
    const hello = await clientHello("API.Example.test");
    expect(sniOf(hello)).toBe("api.example.test");
    expect(sniOf(hello.subarray(0, 40))).toBe("more");
    expect(sniOf(await clientHello(undefined))).toBeUndefined();
    expect(sniOf(Buffer.from("GET / HTTP/1.1\r\n\r\n"))).toBeUndefined();
  });

  test("an HTTP request's Host, without its port; 'more' until the head ends; none for what is not a request", () => {
    expect(httpHostOf(Buffer.from("GET /x HTTP/1.1\r\nUser-Agent: t\r\nHOST: Example.test:8080\r\n\r\n"))).toBe("example.test");
    expect(httpHostOf(Buffer.from("GET /x HTTP/1.1\r\nHost: a.test"))).toBe("more");
    expect(httpHostOf(Buffer.from("GET /x HTTP/1.0\r\n\r\n"))).toBeUndefined();
    expect(httpHostOf(Buffer.from("\u0016\u0003\u0001 binary\r\n\r\n"))).toBeUndefined();
  });

  test("a domain matches itself, `*` anything, `*.x` a subdomain of x at any depth but not x", () => {
    expect(matchesDomain("example.test", "Example.TEST")).toBe(true);
    expect(matchesDomain("a.b.example.test", "*.example.test")).toBe(true);
    expect(matchesDomain("example.test", "*.example.test")).toBe(false);
    expect(matchesDomain("badexample.test", "*.example.test")).toBe(false);
    expect(matchesDomain("anything", "*")).toBe(true);
    expect(matchesDomain("example.test", "")).toBe(false);
  });
});

/**
 * A client of one image's registry (the OCI distribution API): its manifest, for this host's
 * platform when the registry answers with an index, and its blobs, each checked against its digest
 * as it streams so that no tampered or truncated byte is kept. Loopback registries, and those the
 * caller marks `insecure`, are spoken to over plain http, as docker treats them. The client owns its
 * connection pool (undici's global one outlives the emulator) and closes it in `close()`.
 */
import { createHash } from "node:crypto";
import { Transform, type Readable } from "node:stream";
import { Agent, request, type Dispatcher } from "undici";
import { hostPlatform, MANIFEST_ACCEPT, parseManifest, pickPlatform, type Descriptor, type ImageManifest, type Platform } from "./manifest";
import type { ImageReference } from "./reference";
import { answerChallenge, parseChallenge, type RegistryCredentials } from "./registry-auth";

export interface RegistryOptions {
  credentials?: RegistryCredentials;
  /** Plain http to a registry that is not on loopback. */
  insecure?: boolean;
  /** Defaults to linux and this host's architecture. */
  platform?: Platform;
  signal?: AbortSignal;
}

/** The image or its tag is not on the registry: what the service reports as an image not found. */
export class ImageNotFoundError extends Error {
  constructor(
    readonly image: string,
    detail: string,
    /** The registry has no such repository at all (not just no such tag or digest). */
    readonly noRepository = false,
  ) {
    super(`image '${image}' not found: ${detail}`);
    this.name = "ImageNotFoundError";
  }
}

const MAX_MANIFEST_BYTES = 4 << 20;
const MAX_REDIRECTS = 5;

function isLoopback(host: string): boolean {
  const name = host.replace(/:\d+$/, "");
  return name === "localhost" || name === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(name);
}

export class RegistryClient {
  private readonly agent = new Agent({ connections: 8 });
  private readonly base: string;
  private authorization: string | undefined;

  constructor(
    private readonly ref: ImageReference,
    private readonly options: RegistryOptions = {},
  ) {
    const scheme = options.insecure || isLoopback(ref.registry) ? "http" : "https";
    this.base = `${scheme}://${ref.registry}/v2/${ref.repository}`;
  }

  /** The manifest of the image for the platform asked (through the index, when the registry answers with one), and its digest. */
  async manifest(): Promise<{ digest: string; manifest: ImageManifest }> {
    const first = await this.manifestAt(this.ref.reference);
    if (first.parsed.kind === "manifest") return { digest: first.digest, manifest: first.parsed.manifest };
    const chosen = pickPlatform(this.ref.text, first.parsed.manifests, this.options.platform ?? hostPlatform());
    const second = await this.manifestAt(chosen.digest);
    if (second.parsed.kind !== "manifest") throw new Error(`image '${this.ref.text}': the index names another index for its platform`);
    return { digest: second.digest, manifest: second.parsed.manifest };
  }

  /** The blob's bytes; the stream errors (and ends no file) when they do not hash to its digest. */
  async blob(desc: Descriptor): Promise<Readable> {
    const res = await this.send(`${this.base}/blobs/${desc.digest}`, {});
    if (res.statusCode === 404) {
      res.body.resume();
      throw new ImageNotFoundError(this.ref.text, `the registry has no blob ${desc.digest}`);
    }
    await this.refuseFailure(res, `blob ${desc.digest}`);
    const checked = verifying(this.ref.text, desc);
    // pipe() does not pass a source's error on: a connection cut mid-blob must fail the reader too.
    res.body.on("error", (err) => checked.destroy(new Error(`image '${this.ref.text}': blob ${desc.digest} broke off: ${err.message}`, { cause: err })));
    return res.body.pipe(checked);
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private async manifestAt(reference: string) {
    const res = await this.send(`${this.base}/manifests/${reference}`, { accept: MANIFEST_ACCEPT });
    if (res.statusCode === 404) {
      const text = await res.body.text();
      const what = reference.startsWith("sha256:") ? `digest ${reference}` : `tag '${reference}'`;
      const noRepository = /NAME_UNKNOWN/.test(text);
      const repo = noRepository ? `no repository '${this.ref.repository}'` : `no ${what} in '${this.ref.repository}'`;
      throw new ImageNotFoundError(this.ref.text, `the registry ${this.ref.registry} has ${repo}`, noRepository);
    }
    await this.refuseFailure(res, `manifest ${reference}`);
    const body = await readBounded(res.body, MAX_MANIFEST_BYTES, `image '${this.ref.text}': the manifest`);
    const digest = `sha256:${createHash("sha256").update(body).digest("hex")}`;
    if (reference.startsWith("sha256:") && digest !== reference) {
      throw new Error(`image '${this.ref.text}': manifest ${reference} does not match its digest (got ${digest})`);
    }
    const type = res.headers["content-type"];
    return { digest, parsed: parseManifest(this.ref.text, body, typeof type === "string" ? type : "") };
  }

  /** A GET that answers the registry's 401 once, and follows redirects (blobs live on a CDN) without the credentials. */
  private async send(url: string, headers: Record<string, string>): Promise<Dispatcher.ResponseData> {
    const get = (target: string, auth: string | undefined) =>
      request(target, { dispatcher: this.agent, signal: this.options.signal, headers: auth ? { ...headers, authorization: auth } : headers }).catch((err: Error) => {
        throw new Error(`image '${this.ref.text}': cannot reach ${new URL(target).host}: ${err.message}`, { cause: err });
      });
    let res = await get(url, this.authorization);
    const header = res.headers["www-authenticate"];
    if (res.statusCode === 401 && typeof header === "string") {
      res.body.resume();
      const challenge = parseChallenge(header);
      if (!challenge) throw new Error(`image '${this.ref.text}': the registry's authentication challenge is unreadable`);
      this.authorization = await answerChallenge(this.ref.text, challenge, this.ref.repository, this.options.credentials, this.agent, this.options.signal);
      res = await get(url, this.authorization);
    }
    const origin = new URL(url).origin;
    for (let hops = 0; res.statusCode >= 300 && res.statusCode < 400 && res.headers.location; hops++) {
      if (hops === MAX_REDIRECTS) throw new Error(`image '${this.ref.text}': more than ${MAX_REDIRECTS} redirects from ${url}`);
      res.body.resume();
      const next = new URL(String(res.headers.location), url);
      res = await get(next.href, next.origin === origin ? this.authorization : undefined);
    }
    return res;
  }

  private async refuseFailure(res: Dispatcher.ResponseData, what: string): Promise<void> {
    if (res.statusCode === 200) return;
    const text = (await res.body.text()).slice(0, 300);
    if (res.statusCode === 401 || res.statusCode === 403) {
      const given = this.options.credentials ? "the given credentials are refused" : "the repository may need credentials";
      throw new Error(`image '${this.ref.text}': access to ${what} denied (HTTP ${res.statusCode}): ${given}`);
    }
    throw new Error(`image '${this.ref.text}': GET ${what} from ${this.ref.registry} failed (HTTP ${res.statusCode}): ${text}`);
  }
}

async function readBounded(body: Readable, max: number, what: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > max) {
      body.destroy();
      throw new Error(`${what} is larger than ${max} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Passes the bytes through, and fails the stream at the end when they are not the descriptor's (or early, once too many came). */
export function verifying(image: string, desc: Descriptor): Transform {
  const hash = createHash("sha256");
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > desc.size) return done(new Error(`image '${image}': blob ${desc.digest} is longer than its ${desc.size} bytes`));
      hash.update(chunk);
      done(null, chunk);
    },
    flush(done) {
      const got = `sha256:${hash.digest("hex")}`;
      if (size !== desc.size) return done(new Error(`image '${image}': blob ${desc.digest} has ${size} bytes, not its ${desc.size}`));
      if (got !== desc.digest) return done(new Error(`image '${image}': blob ${desc.digest} does not match its digest (got ${got}); refused`));
      done();
    },
  });
}

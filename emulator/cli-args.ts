/** Command-line flags of `sandbox-emulator` → `EmulatorOptions`. Pure: no I/O. */
import { isIP } from "node:net";
import type { EmulatorOptions } from "./index";
import { parseDomain } from "./domain/server";
import { validateFaults, type FaultSettings } from "./faults";
import type { ImagesMode } from "./store/image-roots";

/** The help text, printed by `--help` and after a usage error. */
export const USAGE = `usage: sandbox-emulator [options]

  --host H              interface to listen on (default 127.0.0.1)
  --port N              port, 0 for a free one (default 0)
  --domain D            serve a domain over https, as the service does: api.D and <port>-<sandboxID>.D
                        (D: a host name, e.g. localhost, with an optional port); a CA is made at start
  --api-key K           the valid API key (default: e2b_ + 40 random hex)
  --access-token T      the valid access token (default: sk_e2b_ + 40 random hex)
  --build-seconds S     duration of a template build in seconds (default 1.5)
  --data-dir D          where sandbox and volume files live (default: a temp dir, removed on exit)
  --max-processes N     processes a sandbox may run at once (default 1024)
  --max-file-mb N       largest file a sandbox may write or upload, in MiB (default 1024)
  --sandbox-limit N     the team's concurrent-sandbox limit; creates past it get the service's 429 (default: none)
  --create-ms N         time a sandbox create takes, after its slot is reserved (default 0)
  --connect-ms N        time a connect (resume) takes (default 0)
  --kill-ms N           time a kill takes (default 0)
  --build-step-ms N     time added to each step of a template build (default 0)
  --latency-ms N        delay added to every platform request
  --rate-429 R          share of platform requests answered 429 (0..1)
  --rate-503 R          share of platform requests answered 503 (0..1)
  --drop-rate R         share of requests dropped before handling (0..1)
  --drop-after-rate R   share of requests handled, then dropped unanswered (0..1)
  --fault-seed N        seed of the fault PRNG
  --images M            where a template's FROM image comes from: registry (pull it; a failed pull
                        fails the build), registry-or-host (pull it, else run on the host's system
                        dirs), host (never pull: the host's system dirs). Default: $SANDBOX_EMULATOR_IMAGES, else registry
  --registry-mirror R=M pull registry R's images from M instead (docker.io for Docker Hub); repeatable
  --insecure-registry R speak plain http to registry R (loopback always is); repeatable
  --add-host N=IP       sandboxes' egress resolves name N to IPv4 IP before DNS, as /etc/hosts; repeatable
  --sandbox-network M   uplink (default: out to the network under each sandbox's egress rules, where
                        slirp4netns is installed) or loopback (a sandbox's own loopback alone)
  -h, --help            print this help

Prints one JSON line {"apiUrl","sandboxUrl","apiKey","accessToken","isolation","images"} on stdout when ready
(with --domain also "domain" and "caFile", the CA's PEM file for NODE_EXTRA_CA_CERTS or SSL_CERT_FILE),
then one line per request on stderr. Stops on SIGINT or SIGTERM.`;

/** What the command line asks for: run with options, print help, or a usage error. */
export type ParsedArgs = { kind: "run"; options: EmulatorOptions } | { kind: "help" } | { kind: "error"; message: string };

type Setter = (options: EmulatorOptions, faults: FaultSettings, value: string) => void;

const FLAGS: Record<string, Setter> = {
  "--host": (o, _f, v) => (o.host = v),
  "--port": (o, _f, v) => (o.port = integer("--port", v, 0, 65535)),
  "--domain": (o, _f, v) => (parseDomain(v), (o.domain = v)),
  "--api-key": (o, _f, v) => (o.apiKey = v),
  "--access-token": (o, _f, v) => (o.accessToken = v),
  "--build-seconds": (o, _f, v) => (o.buildDelayMs = Math.round(number("--build-seconds", v) * 1000)),
  "--data-dir": (o, _f, v) => (o.dataDir = v),
  "--max-processes": (o, _f, v) => (o.limits = { ...o.limits, processes: integer("--max-processes", v, 1, 2 ** 31 - 1) }),
  "--max-file-mb": (o, _f, v) => (o.limits = { ...o.limits, fileSizeBytes: integer("--max-file-mb", v, 1, 2 ** 40) * 1024 * 1024 }),
  "--sandbox-limit": (o, _f, v) => (o.sandboxLimit = integer("--sandbox-limit", v, 1, 2 ** 31 - 1)),
  "--create-ms": (o, _f, v) => (o.latency = { ...o.latency, createMs: number("--create-ms", v) }),
  "--connect-ms": (o, _f, v) => (o.latency = { ...o.latency, connectMs: number("--connect-ms", v) }),
  "--kill-ms": (o, _f, v) => (o.latency = { ...o.latency, killMs: number("--kill-ms", v) }),
  "--build-step-ms": (o, _f, v) => (o.latency = { ...o.latency, buildStepMs: number("--build-step-ms", v) }),
  "--latency-ms": (_o, f, v) => (f.latencyMs = number("--latency-ms", v)),
  "--rate-429": (_o, f, v) => (f.rate429 = number("--rate-429", v)),
  "--rate-503": (_o, f, v) => (f.rate503 = number("--rate-503", v)),
  "--drop-rate": (_o, f, v) => (f.dropRate = number("--drop-rate", v)),
  "--drop-after-rate": (_o, f, v) => (f.dropAfterRate = number("--drop-after-rate", v)),
  "--images": (o, _f, v) => (o.images = imagesMode(v)),
  "--registry-mirror": (o, _f, v) => (o.registryMirrors = { ...o.registryMirrors, ...mirror(v) }),
  "--insecure-registry": (o, _f, v) => (o.insecureRegistries = [...(o.insecureRegistries ?? []), v]),
  "--sandbox-network": (o, _f, v) => (o.sandboxNetwork = sandboxNetwork(v)),
  "--add-host": (o, _f, v) => (o.egressHosts = { ...o.egressHosts, ...addHost(v) }),
  "--fault-seed": (_o, f, v) => (f.faultSeed = integer("--fault-seed", v, -(2 ** 31), 2 ** 32 - 1)),
};

/** Parses `--flag value` and `--flag=value` forms; any problem is an `error` result. */
export function parseArgs(argv: string[]): ParsedArgs {
  const options: EmulatorOptions = {};
  const faults: FaultSettings = {};
  try {
    for (let i = 0; i < argv.length; i++) {
      const arg = argv[i]!;
      if (arg === "-h" || arg === "--help") return { kind: "help" };
      const eq = arg.indexOf("=");
      const flag = eq > 0 ? arg.slice(0, eq) : arg;
      const setter = FLAGS[flag];
      if (!setter) throw new Error(`unknown option '${arg}'`);
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new Error(`option '${flag}' needs a value`);
      setter(options, faults, value);
    }
    if (Object.keys(faults).length > 0) options.faults = validateFaults(faults);
    return { kind: "run", options };
  } catch (err) {
    return { kind: "error", message: (err as Error).message };
  }
}

function imagesMode(value: string): ImagesMode {
  if (value === "registry" || value === "registry-or-host" || value === "host") return value;
  throw new Error(`option '--images' needs registry, registry-or-host or host, got '${value}'`);
}

function mirror(value: string): Record<string, string> {
  const [registry, host, extra] = value.split("=");
  if (!registry || !host || extra !== undefined) throw new Error(`option '--registry-mirror' needs REGISTRY=MIRROR (docker.io=127.0.0.1:5000), got '${value}'`);
  return { [registry]: host };
}

function sandboxNetwork(value: string): "uplink" | "loopback" {
  if (value === "uplink" || value === "loopback") return value;
  throw new Error(`option '--sandbox-network' needs uplink or loopback, got '${value}'`);
}

function addHost(value: string): Record<string, string> {
  const [name, ip, extra] = value.split("=");
  if (!name || !ip || extra !== undefined || isIP(ip) !== 4) throw new Error(`option '--add-host' needs NAME=IPv4 (api.example=198.51.100.7), got '${value}'`);
  return { [name.toLowerCase()]: ip };
}

function number(flag: string, value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < 0) throw new Error(`option '${flag}' needs a number of 0 or more, got '${value}'`);
  return n;
}

function integer(flag: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^-?\d+$/.test(value.trim()) || n < min || n > max) throw new Error(`option '${flag}' needs an integer from ${min} to ${max}, got '${value}'`);
  return n;
}

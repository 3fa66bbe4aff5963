/**
 * The builder flags of a Dockerfile's instructions, as e2b 2.63 takes them (`template/dockerfile_parser.py`):
 * the ones it honours (COPY/ADD `--chown`, `--chmod`), the one it refuses (`--from`), and the ones it
 * ignores with a warning (RUN `--mount`, COPY `--link`, FROM `--platform`, …); any other is refused.
 */
import { DockerfileSyntaxError } from "./dockerfile-syntax-error";
import type { DockerfileInstruction } from "./dockerfile-syntax";

/** Flag name → its type and whether it is ignored (accepted with a warning), as the SDK has them. */
export type FlagSpecs = Readonly<Record<string, readonly ["string" | "bool", boolean]>>;

export const RUN_FLAGS: FlagSpecs = { mount: ["string", true], network: ["string", true], security: ["string", true], device: ["string", true] };
export const COPY_FLAGS: FlagSpecs = {
  chown: ["string", false],
  chmod: ["string", false],
  from: ["string", false],
  link: ["bool", true],
  exclude: ["string", true],
  parents: ["bool", true],
};
export const ADD_FLAGS: FlagSpecs = { ...COPY_FLAGS, "keep-git-dir": ["bool", true], checksum: ["string", true], unpack: ["bool", true] };
export const FROM_FLAGS: FlagSpecs = { platform: ["string", true] };

/** What an ignored flag means for the build, in its warning. */
const IGNORED_FLAG_EFFECT: Record<string, string> = {
  mount: "the command runs without the mount",
  network: "the command runs with the builder's network",
  security: "the command runs with the builder's default security",
  device: "the command runs without the device",
  link: "the files are copied as without it",
  exclude: "the files it names are copied too",
  parents: "the files are copied as without it",
  "keep-git-dir": "the files are copied as without it",
  checksum: "the files are not checked",
  unpack: "the files are copied as without it",
  platform: "the image is pulled for the builder's platform",
};

/**
 * The flags an instruction may have (`specs`), by name; the ones the SDK ignores are passed to `warn`
 * and left out.
 *
 * @throws DockerfileSyntaxError for a flag the instruction does not take, one given twice, a bad value.
 */
export function parseFlags(ins: DockerfileInstruction, specs: FlagSpecs, warn: (message: string) => void): Map<string, string> {
  const values = new Map<string, string>();
  const seen = new Set<string>();
  for (const flag of ins.flags) {
    if (!flag.startsWith("--")) throw new DockerfileSyntaxError(`arg should start with -- : ${flag}`);
    const body = flag.slice(2);
    const eq = body.indexOf("=");
    const name = eq < 0 ? body : body.slice(0, eq);
    const raw = eq < 0 ? undefined : body.slice(eq + 1);
    const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
    if (name === "from" && (ins.name === "COPY" || ins.name === "ADD")) {
      throw new DockerfileSyntaxError("--from copies from another stage; multi-stage Dockerfiles are not supported");
    }
    if (spec === undefined) throw new DockerfileSyntaxError(`unknown flag: ${name}`);
    if (seen.has(name)) throw new DockerfileSyntaxError(`duplicate flag specified: ${name}`);
    seen.add(name);
    const [type, ignored] = spec;
    let value: string;
    if (type === "bool") {
      if (raw === undefined || raw === "" || raw === "true") value = "true";
      else if (raw === "false") value = "false";
      else throw new DockerfileSyntaxError(`expecting boolean value for flag ${name}, not: ${raw}`);
    } else {
      if (raw === undefined) throw new DockerfileSyntaxError(`missing a value on flag: ${name}`);
      value = raw;
    }
    if (ignored) {
      warn(`--${name} is ignored (the service's builder does not support it: ${IGNORED_FLAG_EFFECT[name] ?? "it has no effect"})`);
      continue;
    }
    values.set(name, value);
  }
  return values;
}

/**
 * Which values of a resource's args the program marked secret. The dynamic-provider host tells the
 * provider nothing of secrets (it asks the engine for plain values), so the class hands over the
 * plaintext of each secret string as one more input, itself a secret: state keeps it encrypted, and
 * the provider hides exactly these values from logs (pulumi.interpolate over a secret makes the whole
 * string secret, so a command that embeds a token is hidden whole), and nothing that is not secret.
 * The provider also learns from them which inputs came in secret (../runtime/secrets.ts).
 */
import * as pulumi from "@pulumi/pulumi";
import { UNKNOWN } from "./spec";

export function secretValuesOf(args: object): pulumi.Output<(string | number)[]> {
  return pulumi.secret(pulumi.output(collect(args, false).then((values) => {
    const strings = values.filter((v): v is string => typeof v === "string");
    return [...new Set([...values, ...configSecretsWithin(strings)])];
  })));
}

/**
 * The stack's secret config values found inside the secret strings. `pulumi.interpolate` over a
 * secret keeps no trace of the secret it was made from, yet what runs prints that part alone: `RUN
 * echo ${token}` in a Dockerfile logs the token, never the whole Dockerfile. Stack config is where such
 * a token usually comes from, so each of its secret values (and each string inside a structured one)
 * that a secret string holds is hidden on its own too. A secret from elsewhere (another resource's
 * output) is hidden only as the whole string, or its lines.
 */
function configSecretsWithin(values: string[]): string[] {
  // @internal to @pulumi/pulumi, so not in its typings: the keys the language host says are secret
  // (PULUMI_CONFIG_SECRET_KEYS). Without it, nothing is added.
  const runtime = pulumi.runtime as typeof pulumi.runtime & { isConfigSecret?: (key: string) => boolean };
  if (values.length === 0 || typeof runtime.isConfigSecret !== "function") return [];
  const found: string[] = [];
  for (const [key, value] of Object.entries(runtime.allConfig())) {
    if (typeof value !== "string" || !runtime.isConfigSecret(key)) continue;
    for (const candidate of [value, ...stringsOfJson(value)]) {
      if (candidate !== "" && values.some((v) => v !== candidate && v.includes(candidate))) found.push(candidate);
    }
  }
  return found;
}

/** The strings inside a structured config value (`pulumi config set --path`), none for a plain one. */
function stringsOfJson(text: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  const strings = (v: unknown): string[] =>
    typeof v === "string" ? [v] : v !== null && typeof v === "object" ? Object.values(v).flatMap(strings) : [];
  return parsed !== null && typeof parsed === "object" ? strings(parsed) : [];
}

/** The value of an Output, with unknowns (preview) as they are, and without taking its dependencies. */
function valueOf(output: pulumi.Output<unknown>): Promise<unknown> {
  const withPromise = output as unknown as { promise?: (withUnknowns?: boolean) => Promise<unknown> };
  // An apply would never run for an unknown value at preview; only the Output's own promise sees it.
  if (typeof withPromise.promise !== "function") throw new Error("pulumi-sandbox: this @pulumi/pulumi has no Output.promise; use the version this package depends on");
  return withPromise.promise(true);
}

async function collect(value: unknown, secret: boolean): Promise<(string | number)[]> {
  if (pulumi.Output.isInstance(value)) {
    const [isSecret, inner] = await Promise.all([pulumi.isSecret(value), valueOf(value)]);
    return collect(inner, secret || isSecret);
  }
  if (value instanceof Promise) return collect(await value, secret);
  if (Array.isArray(value)) return (await Promise.all(value.map((v) => collect(v, secret)))).flat();
  if (value !== null && typeof value === "object") return (await Promise.all(Object.values(value).map((v) => collect(v, secret)))).flat();
  // A secret number is kept as a number: logs hide only strings (a port's digits are in many a line),
  // but state hides it wherever it shows (a URL map keyed by a secret port: ./runtime/secret-net.ts).
  if (secret && typeof value === "number" && Number.isFinite(value)) return [value];
  return secret && typeof value === "string" && value !== "" && value !== UNKNOWN ? [value] : [];
}

/**
 * How a registry's 401 is answered, as docker answers it: a `Bearer realm=…,service=…,scope=…`
 * challenge sends the client to the realm for a token (anonymously, or with the user's credentials
 * as Basic auth), a `Basic` one takes the credentials directly. The credentials are what the
 * service's `fromImageRegistry` `{type: "registry", username, password}` carries; they are never
 * put in a message.
 */
import type { Dispatcher } from "undici";
import { request } from "undici";
import { z } from "zod";

export interface RegistryCredentials {
  username: string;
  password: string;
}

export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

/** The first challenge of a `WWW-Authenticate` header; quoted values may hold commas. */
export function parseChallenge(header: string): Challenge | undefined {
  const m = /^\s*(\w+)\s*(.*)$/s.exec(header);
  if (!m) return undefined;
  const params: Record<string, string> = {};
  for (const p of m[2]!.matchAll(/(\w+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g)) {
    params[p[1]!.toLowerCase()] = p[2] !== undefined ? p[2].replace(/\\(.)/g, "$1") : p[3]!;
  }
  return { scheme: m[1]!.toLowerCase(), params };
}

export function basicAuth(c: RegistryCredentials): string {
  return `Basic ${Buffer.from(`${c.username}:${c.password}`, "utf8").toString("base64")}`;
}

// The distribution token spec names it `token`; OAuth2 servers answer `access_token`.
const tokenAnswer = z.object({ token: z.string().optional(), access_token: z.string().optional() });

/**
 * The Authorization header a challenge asks for: `Bearer <token>` from the realm, or Basic.
 * @throws Error naming the image when the realm refuses or answers no token, or when Basic is asked and no credentials were given.
 */
export async function answerChallenge(
  image: string,
  challenge: Challenge,
  repository: string,
  credentials: RegistryCredentials | undefined,
  dispatcher: Dispatcher,
  signal: AbortSignal | undefined,
): Promise<string> {
  if (challenge.scheme === "basic") {
    if (!credentials) throw new Error(`image '${image}': the registry asks for credentials (Basic auth) and none were given`);
    return basicAuth(credentials);
  }
  if (challenge.scheme !== "bearer" || !challenge.params.realm) {
    throw new Error(`image '${image}': the registry asks for an authentication scheme the emulator does not speak ('${challenge.scheme}')`);
  }
  const realm = new URL(challenge.params.realm);
  if (challenge.params.service) realm.searchParams.set("service", challenge.params.service);
  realm.searchParams.set("scope", challenge.params.scope ?? `repository:${repository}:pull`);
  const res = await request(realm, {
    dispatcher,
    signal,
    headers: credentials ? { authorization: basicAuth(credentials) } : {},
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) {
    const who = credentials ? "refused the given credentials" : "refused an anonymous token";
    throw new Error(`image '${image}': the registry's token service ${who} (HTTP ${res.statusCode})`);
  }
  let parsed: z.infer<typeof tokenAnswer> | undefined;
  try {
    parsed = tokenAnswer.parse(JSON.parse(text));
  } catch {
    parsed = undefined;
  }
  const token = parsed?.token ?? parsed?.access_token;
  if (!token) throw new Error(`image '${image}': the registry's token service answered no token`);
  return `Bearer ${token}`;
}

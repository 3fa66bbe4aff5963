/**
 * Team secrets (docs/service.md#secrets): `POST /secrets` creates one (201), `GET /secrets` lists
 * them (paged), `GET|POST|DELETE /secrets/{secretID}` read, update (a new version, 200) and delete
 * (204) one chosen by ID or name. No answer carries a value, and every answer, errors included, is
 * marked `Cache-Control: no-store`. Each failure has one fixed message per status, whatever the
 * request held, since the service never echoes request material on these routes. Rules and
 * messages from infra: handlers/secrets.go, middleware/secrets.go, utils/error.go (secretsErrorMessage),
 * shared/pkg/secretsstore/name.go and the spec's NewSecret, SecretUpdate and SecretMetadata.
 */
import { z } from "zod";
import { authenticate, type Credentials } from "../auth";
import { ApiError, json, noContent, type Reply, type RequestContext } from "../http";
import { paginate } from "../paging";
import type { Route } from "../router";
import { isSecretID, SECRET_ID_PREFIX } from "../secret-ids";
import type { Stores } from "../store";
import { secretView, type SecretRecord, type SecretRef } from "../store/secrets";

export const SECRETS_INVALID = "Invalid secrets request";
export const SECRETS_UNAUTHORIZED = "You are not authenticated";
export const SECRET_NOT_FOUND = "Secret not found";
export const SECRET_CONFLICT = "Secret cannot be modified in its current state";
const NO_STORE = { "Cache-Control": "no-store" };

const NAME_RE = /^[a-zA-Z0-9_-]+$/;
const Metadata = z.record(z.string(), z.string())
  .refine((m) => Object.keys(m).length <= 32)
  .refine((m) => Object.entries(m).every(([k, v]) => bytes(k) <= 128 && bytes(v) <= 1024))
  .refine((m) => Object.entries(m).reduce((sum, [k, v]) => sum + bytes(k) + bytes(v), 0) <= 8192);
const NewSecretBody = z.object({ name: z.string().min(1).max(128).regex(NAME_RE), value: z.string(), metadata: Metadata.optional() });
const SecretUpdateBody = z.object({ value: z.string(), metadata: Metadata.optional() });

/** The five secrets operations; `creds.apiKey`, as it is at each request, is the one key they accept. */
export function secretRoutes(stores: Stores, creds: Pick<Credentials, "apiKey">): Route[] {
  const guarded = (handler: (ctx: RequestContext) => Reply | Promise<Reply>) => (ctx: RequestContext) => guard(creds.apiKey, ctx, handler);
  return [
    { method: "GET", pattern: "/secrets", auth: "none", handler: guarded((ctx) => listSecrets(stores, ctx.query)) },
    { method: "POST", pattern: "/secrets", auth: "none", handler: guarded((ctx) => createSecret(stores, ctx)) },
    { method: "GET", pattern: "/secrets/:secretID", auth: "none", handler: guarded((ctx) => json(200, secretView(found(stores, ctx)))) },
    { method: "POST", pattern: "/secrets/:secretID", auth: "none", handler: guarded((ctx) => updateSecret(stores, ctx)) },
    {
      method: "DELETE", pattern: "/secrets/:secretID", auth: "none",
      handler: guarded((ctx) => (stores.secrets.delete(found(stores, ctx)), noContent())),
    },
  ];
}

/**
 * Authenticates here rather than in the router, since a secrets route answers a missing key with
 * its own message; and turns every failure into its status's fixed text, marked no-store.
 */
async function guard(apiKey: string, ctx: RequestContext, handler: (ctx: RequestContext) => Reply | Promise<Reply>): Promise<Reply> {
  try {
    try {
      authenticate("apiKey", ctx.headers, { apiKey, accessToken: "" });
    } catch {
      throw new ApiError(401, SECRETS_UNAUTHORIZED);
    }
    const reply = await handler(ctx);
    return { ...reply, headers: { ...reply.headers, ...NO_STORE } };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const message = err.status === 400 ? SECRETS_INVALID : err.message;
    throw new ApiError(err.status, message, { ...err.headers, ...NO_STORE });
  }
}

async function createSecret(stores: Stores, ctx: RequestContext): Promise<Reply> {
  const body = NewSecretBody.safeParse(await ctx.json());
  if (!body.success) throw new ApiError(400, SECRETS_INVALID);
  const record = stores.secrets.create(normalName(body.data.name), body.data.value, body.data.metadata ?? {});
  if (!record) throw new ApiError(409, SECRET_CONFLICT);
  return json(201, secretView(record));
}

async function updateSecret(stores: Stores, ctx: RequestContext): Promise<Reply> {
  const ref = secretRef(ctx.params.secretID ?? "");
  const body = SecretUpdateBody.safeParse(await ctx.json());
  if (!body.success) throw new ApiError(400, SECRETS_INVALID);
  const record = stores.secrets.find(ref);
  if (!record) throw new ApiError(404, SECRET_NOT_FOUND);
  return json(200, secretView(stores.secrets.update(record, body.data.value, body.data.metadata)));
}

function listSecrets(stores: Stores, query: URLSearchParams): Reply {
  const raw = query.get("limit");
  const limit = raw === null || raw === "" ? 100 : Number(raw);
  if (!/^\d+$/.test(raw ?? "100") || limit < 1 || limit > 100) throw new ApiError(400, SECRETS_INVALID);
  // IDs are time-ordered, so creation order is the ID order the service's store keeps.
  const key = (s: SecretRecord) => ({ t: s.createdAt.getTime(), id: s.secretID });
  const { page, next } = paginate(stores.secrets.all(), key, { limit, order: "asc", token: query.get("nextToken") });
  return json(200, page.map(secretView), next ? { "X-Next-Token": next } : undefined);
}

function found(stores: Stores, ctx: RequestContext): SecretRecord {
  const record = stores.secrets.find(secretRef(ctx.params.secretID ?? ""));
  if (!record) throw new ApiError(404, SECRET_NOT_FOUND);
  return record;
}

/** A path selector as the service reads it: `sec_…` (any case, trimmed) is an ID and only an ID; else a name. */
function secretRef(selector: string): SecretRef {
  const classified = selector.trim().toLowerCase();
  if (!classified.startsWith(SECRET_ID_PREFIX)) return { name: normalName(selector) };
  if (!isSecretID(classified)) throw new ApiError(400, SECRETS_INVALID);
  return { secretID: classified };
}

/** secretsstore.NormalizeName: trimmed, 1–128 bytes of [A-Za-z0-9_-], lower-cased, not starting `sec_`. */
function normalName(input: string): string {
  const name = input.trim();
  if (name.length === 0 || bytes(name) > 128 || !NAME_RE.test(name)) throw new ApiError(400, SECRETS_INVALID);
  const lower = name.toLowerCase();
  if (lower.startsWith(SECRET_ID_PREFIX)) throw new ApiError(400, SECRETS_INVALID);
  return lower;
}

function bytes(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

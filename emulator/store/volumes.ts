/**
 * Team volumes: a name, a UUID and a host directory `<dataDir>/volumes/<volumeID>/` that sandboxes
 * mount through symlinks, so content outlives any one sandbox. Each read mints a fresh token, a
 * JWT shaped like the real one (HS256 with a per-start secret), which the content API verifies.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { chownSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { removeTreeSync } from "../confined/remove-tree";
import { hostId, idsOf } from "../envd/isolation/layout";
import type { Isolation } from "../envd/isolation/mode";
import { ApiError } from "../http";
import { isUUID, newUUID } from "../ids";

/** A volume. */
export interface VolumeRecord {
  volumeID: string;
  name: string;
  createdAt: Date;
  /** Host directory holding the volume's content. */
  hostDir: string;
}

/** Lifetime of a minted volume token, in seconds. */
const TOKEN_TTL_S = 3600;

/** The volumes, their host dirs and their token signer. */
export class VolumeStore {
  private readonly volumes = new Map<string, VolumeRecord>();
  private readonly secret = randomBytes(32);
  private readonly kid = newUUID();

  /** `rootDir`: the directory volumes live under (`<dataDir>/volumes`). */
  constructor(
    private readonly rootDir: string,
    private readonly teamID: string,
    private readonly audience: () => string,
    private readonly isolation: Isolation = { mode: "none", reason: "not asked for" },
  ) {}

  all(): VolumeRecord[] {
    return [...this.volumes.values()];
  }

  byName(name: string): VolumeRecord | undefined {
    return this.all().find((v) => v.name === name);
  }

  /** Creates a volume; a taken name is a 400, as in the real service. */
  create(name: string): VolumeRecord {
    if (this.byName(name)) throw new ApiError(400, `Volume with name '${name}' already exists`);
    return this.restore(newUUID(), name, new Date());
  }

  /** With isolated sandboxes, the host id of their id 0 (for the content API's owners); else undefined. */
  get idBase(): number | undefined {
    return this.isolation.mode === "namespaces" ? this.isolation.idBase : undefined;
  }

  /** Adds a volume under a known ID, with an empty directory: how create ends, and how a snapshot (../snapshot.ts) puts one back. */
  restore(volumeID: string, name: string, createdAt: Date): VolumeRecord {
    const hostDir = this.dirOf(volumeID);
    mkdirSync(hostDir, { recursive: true });
    // Isolated sandboxes write as their own ids: the volume's top dir belongs to their `user`.
    const owner = hostId(this.isolation, idsOf("user"));
    if (owner !== undefined) chownSync(hostDir, owner, owner);
    const volume = { volumeID, name, createdAt, hostDir };
    this.volumes.set(volumeID, volume);
    return volume;
  }

  /** Host directory of the volume with this ID, whether or not the volume exists. */
  dirOf(volumeID: string): string {
    return join(this.rootDir, volumeID);
  }

  /** The volume with this ID: 400 "Invalid volume ID" for a non-UUID, 404 "Volume not found". */
  get(volumeID: string): VolumeRecord {
    if (!isUUID(volumeID)) throw new ApiError(400, "Invalid volume ID");
    const volume = this.volumes.get(volumeID.toLowerCase());
    if (!volume) throw new ApiError(404, "Volume not found");
    return volume;
  }

  /**
   * Deletes the record and its content. Sandboxes that mount it keep a dangling link, as no check
   * exists; one still running cannot point the removal at the host's files (../confined/remove-tree.ts).
   */
  delete(volumeID: string): void {
    const volume = this.get(volumeID);
    this.volumes.delete(volume.volumeID);
    removeTreeSync(volume.hostDir);
  }

  /** A new token for the volume (every GET mints one). */
  mintToken(volume: VolumeRecord): string {
    const now = Math.floor(Date.now() / 1000);
    const header = { alg: "HS256", typ: "JWT", kid: this.kid };
    const claims = {
      aud: this.audience(), sub: this.teamID, teamid: this.teamID, volid: volume.volumeID, voltype: "local",
      iat: now, nbf: now, exp: now + TOKEN_TTL_S, jti: newUUID(),
    };
    const unsigned = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
    return `${unsigned}.${this.sign(unsigned)}`;
  }

  /** The volume ID a token of ours grants, if its signature holds and it has not expired. */
  verifyToken(token: string): string | undefined {
    const [header, claims, signature] = token.split(".");
    if (!header || !claims || !signature) return undefined;
    const expected = Buffer.from(this.sign(`${header}.${claims}`));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    try {
      const { volid, exp } = JSON.parse(Buffer.from(claims, "base64url").toString("utf8")) as { volid?: unknown; exp?: unknown };
      if (typeof volid !== "string" || typeof exp !== "number" || exp * 1000 < Date.now()) return undefined;
      return volid;
    } catch {
      return undefined;
    }
  }

  private sign(unsigned: string): string {
    return createHmac("sha256", this.secret).update(unsigned).digest("base64url");
  }
}

function b64url(text: string): string {
  return Buffer.from(text).toString("base64url");
}

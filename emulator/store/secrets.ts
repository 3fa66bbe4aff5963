/**
 * Team secrets (docs/service.md#secrets): a name unique in the team, a list of versions of which the
 * last is served, and customer metadata. The value is kept for the sandboxes' egress to resolve and
 * is never part of a record's public view (`secretView`).
 */
import { newSecretID } from "../secret-ids";

/** A secret. `versions` holds every value written, oldest first. */
export interface SecretRecord {
  secretID: string;
  name: string;
  versions: string[];
  metadata: Record<string, string>;
  createdAt: Date;
  updatedAt: Date;
}

/** What selects a secret: its ID, or its canonical (lower-case) name. */
export type SecretRef = { secretID: string } | { name: string };

/** The team's secrets, by ID. A deleted secret is forgotten, which frees its name. */
export class SecretStore {
  private readonly byID = new Map<string, SecretRecord>();

  /** Creates a secret with its first version; undefined when the name is taken. */
  create(name: string, value: string, metadata: Record<string, string>): SecretRecord | undefined {
    if (this.find({ name })) return undefined;
    const now = new Date();
    const record: SecretRecord = { secretID: newSecretID(now.getTime()), name, versions: [value], metadata, createdAt: now, updatedAt: now };
    this.byID.set(record.secretID, record);
    return record;
  }

  find(ref: SecretRef): SecretRecord | undefined {
    if ("secretID" in ref) return this.byID.get(ref.secretID);
    return [...this.byID.values()].find((s) => s.name === ref.name);
  }

  /** Appends a version; `metadata` replaces the old when given, and is kept when not. */
  update(record: SecretRecord, value: string, metadata: Record<string, string> | undefined): SecretRecord {
    record.versions.push(value);
    if (metadata !== undefined) record.metadata = metadata;
    record.updatedAt = new Date();
    return record;
  }

  delete(record: SecretRecord): void {
    this.byID.delete(record.secretID);
  }

  all(): SecretRecord[] {
    return [...this.byID.values()];
  }
}

/** A secret as every answer shows it: metadata only, never a value. */
export function secretView(record: SecretRecord) {
  return {
    secretID: record.secretID,
    name: record.name,
    currentVersion: record.versions.length,
    metadata: { ...record.metadata },
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}

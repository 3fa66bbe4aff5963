/**
 * What a fleet's state keeps of each member beside its entry: one record per member (`__members`),
 * each part left out at its default, so a fleet of hundreds of plain members keeps none.
 *
 * Incarnations. A member dropped from `members` and added again later is a new member: its create must
 * not send the idempotency key of the one deleted (the service answers a key it has seen with that
 * create's answer: a sandbox that has ended, or a refusal). So a key the fleet let go of is retired
 * (`__retired`: the incarnation its next member is), and a member of a later incarnation derives its
 * nonce, and so its keys, from it (./members.ts identityOf). Only retired keys and the members made
 * under them cost state: the first incarnation, 0, is left out. The re-run of a killed update reads the
 * same state, so it finds what the killed run made as its own.
 *
 * State written before records (0.3: four maps, `__generations`, `__provisionRuns`, `__memberInputs`,
 * `__spent`) is read through `recordOf`, and written back as records.
 */
type Obj = Record<string, unknown>;

export interface MemberRecord {
  /** Which member under this key it is: 0 for the first, one more each time the key was let go of and asked for again. */
  incarnation?: number;
  /** Its sandbox's generation: it grows when the member is replaced inside the fleet. */
  generation?: number;
  /** Its last provisioning run (../../runtime/resume.ts runNumber). */
  run?: number;
  /**
   * The inputs its sandbox was made from, when not what the fleet's inputs say: a change of the member
   * that failed (its old sandbox kept), so the next `up` tries it again.
   */
  madeFrom?: Obj;
  /**
   * The last generation a create of it used that left it no sandbox (refused, or its sandbox ended
   * since): the next create takes a later one, so its idempotency key is new.
   */
  spent?: number;
}

/** The state fields that hold member records, in today's layout and 0.3's. */
export interface RecordFields {
  __members?: Record<string, MemberRecord>;
  /** Keys the fleet let go of, each with the incarnation of the next member under it. */
  __retired?: Record<string, number>;
  __generations?: Record<string, number>;
  __provisionRuns?: Record<string, number>;
  __memberInputs?: Record<string, Obj>;
  __spent?: Record<string, number>;
}

/**
 * `map[key]` when `key` is the map's own: a member keyed `constructor` or `toString` is no property
 * every object inherits. Every read of a per-member map goes through here.
 */
export function own<V>(map: Record<string, V> | undefined, key: string): V | undefined {
  return map !== undefined && Object.hasOwn(map, key) ? map[key] : undefined;
}

/** The record with its defaults left out; undefined when nothing is left. */
export function compact(record: MemberRecord): MemberRecord | undefined {
  const out: MemberRecord = {};
  if (record.incarnation) out.incarnation = record.incarnation;
  if (record.generation) out.generation = record.generation;
  if (record.run) out.run = record.run;
  if (record.madeFrom) out.madeFrom = record.madeFrom;
  if (record.spent !== undefined) out.spent = record.spent;
  return Object.keys(out).length ? out : undefined;
}

/** Member `key`'s record, from either layout. */
export function recordOf(state: RecordFields, key: string): MemberRecord {
  if (state.__members !== undefined) return own(state.__members, key) ?? {};
  return {
    generation: own(state.__generations, key),
    run: own(state.__provisionRuns, key),
    madeFrom: own(state.__memberInputs, key),
    spent: own(state.__spent, key),
  };
}

/** Every member that has a record, in either layout. */
export function recordedKeys(state: RecordFields): string[] {
  if (state.__members !== undefined) return Object.keys(state.__members);
  const maps = [state.__generations, state.__provisionRuns, state.__memberInputs, state.__spent];
  return [...new Set(maps.flatMap((m) => Object.keys(m ?? {})))];
}

/** The incarnation of member `key`: its record's, or (made from nothing) the next one of its retired key. */
export const incarnationOf = (state: RecordFields, key: string): number => recordOf(state, key).incarnation ?? own(state.__retired, key) ?? 0;

/** `state` without the member records of either layout (its retired keys kept), for the caller to write its records in. */
export function withoutRecords<T extends Obj>(state: T): T {
  const { __members: _m, __generations: _g, __provisionRuns: _r, __memberInputs: _i, __spent: _p, ...rest } = state;
  return rest as T;
}

/** Every member's record, by key, from either layout. */
export function recordsOf(state: RecordFields): Record<string, MemberRecord> {
  return Object.fromEntries(recordedKeys(state).map((k) => [k, recordOf(state, k)]));
}

/** `records` as state keeps them (`__members`): the members `keep` holds, each compacted; none when all are empty. */
export function packed(records: Record<string, MemberRecord>, keep: (key: string) => boolean = () => true): Pick<RecordFields, "__members"> {
  const kept = Object.entries(records).filter(([k]) => keep(k)).map(([k, r]) => [k, compact(r)] as const).filter(([, r]) => r !== undefined);
  return kept.length ? { __members: Object.fromEntries(kept) as Record<string, MemberRecord> } : {};
}

/** The record fields of `state` with `spent` set for each of `keys` (members whose sandbox is gone), in today's layout. */
export function withSpent(state: RecordFields, spent: Readonly<Record<string, number>>): Pick<RecordFields, "__members"> {
  const records = recordsOf(state);
  for (const [key, generation] of Object.entries(spent)) records[key] = { ...own(records, key), spent: generation };
  return packed(records);
}

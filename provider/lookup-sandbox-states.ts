/** The states a lookup reports a sandbox in (./lookup-shapes.ts, ./lookup-one-shapes.ts). Only zod's users import it. */
export const SANDBOX_STATES = ["running", "paused"] as const;

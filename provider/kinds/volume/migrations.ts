/** How a Volume's state written by older versions is brought up to date (../../runtime/migrate.ts). */
import type { Migration } from "../kind";

export const volumeMigrations: readonly Migration[] = [
  {
    before: "0.2.0",
    why: "the volume's ID output is `volumeID` (like sandboxID and templateID); `volumeId` stays for one release",
    up: (s) => (s.volumeID === undefined && typeof s.volumeId === "string" ? { ...s, volumeID: s.volumeId } : s),
  },
];

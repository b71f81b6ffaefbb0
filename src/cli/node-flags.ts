/**
 * The Node.js flags the `parley` command runs with, written once: on the first line of
 * src/cli.ts (`#!/usr/bin/env -S node <flags>`, so `npx parley serve` gets them), repeated
 * in `npm start` (a test keeps the two equal) and read from there by whatever else starts
 * the server as a user would (the bench).
 *
 * --min-semi-space-size=16: V8 starts the young generation small and grows it only when its
 * survival heuristics say so, so the same server settled, run after run, in one of two
 * states: a 16 MB semi-space (a scavenge every ~17 ms freeing nearly everything) or a small
 * one (a scavenge every few ms, each promoting the in-flight requests' objects, and old-space
 * collections every second). The second cost GET /api/v1/users/me a third of its rate
 * (0.40 against 0.60 of the bare server in the same run, p99 4.2 ms against 1.2) and half
 * the runs landed there. 16 MB is the largest size V8 grows it to by default here: fixed at
 * that size from the start, every run is the first kind.
 */
import fs from "node:fs";

/** The flags after `node` on a script's `#!/usr/bin/env -S node …` line (none without one). */
export function shebangNodeFlags(script: string): string[] {
  const first = fs.readFileSync(script, "utf8").split("\n", 1)[0];
  const m = /^#!\/usr\/bin\/env -S node((?: --?[\w-]+(?:=\S+)?)*)\s*$/.exec(first);
  return m ? m[1].split(" ").filter(Boolean) : [];
}

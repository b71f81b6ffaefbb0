/** What the file store of a test server holds, whichever backend it uses (src/storage). */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { AppContext } from "../../src/context.js";
import { fileStore, type FileArea } from "../../src/storage/file-store.js";

/** The names of an organization's stored files in an area, sorted. */
export async function storedFileNames(ctx: AppContext, realmId: number, area: FileArea): Promise<string[]> {
  if (ctx.config.fileStorage === "database") {
    const rows = await ctx.db.selectFrom("stored_files").select("name").where("realm_id", "=", realmId).where("area", "=", area).execute();
    return rows.map((r) => r.name).sort();
  }
  const root = join(ctx.config.dataDir, "uploads", ...(area === "emoji" ? ["emoji"] : []), String(realmId));
  try {
    return readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name).slice(root.length + 1))
      .sort();
  } catch {
    return [];
  }
}

/** The bytes of a stored attachment, by its path id; null when none are stored. */
export async function storedAttachmentBytes(ctx: AppContext, pathId: string): Promise<Buffer | null> {
  const [realmId, ...rest] = pathId.split("/");
  return (await fileStore(ctx).get(Number(realmId), "attachments", rest.join("/")))?.data ?? null;
}

/**
 * GET /server_settings per realm, serialized: the rendered description and the web-public
 * channel check are the costly parts. Keyed by realm and by the fields that do not come
 * from the database: whether the client is incompatible, whether push is configured.
 */
import { GenerationalMap } from "./generational-map.js";

export class ServerSettingsCache {
  private readonly bodies = new GenerationalMap<string, { realmId: number; json: Buffer }>(1000);

  /** The response's fields as UTF-8 JSON (without braces), from `render` on a miss. */
  fields(realmId: number, variant: { incompatible: boolean; push: boolean }, render: () => Promise<string>): Buffer | Promise<Buffer> {
    const key = `${realmId}:${variant.incompatible}:${variant.push}`;
    // A hit answers at once (no promise).
    const hit = this.bodies.get(key);
    if (hit !== undefined) return hit.json;
    return this.bodies.getOrLoad(key, async () => ({ realmId, json: Buffer.from(await render()) })).then((entry) => entry.json);
  }

  flushRealm(realmId: number): void {
    this.bodies.flush((_, entry) => entry.realmId === realmId);
  }

  flushAll(): void {
    this.bodies.flush();
  }
}

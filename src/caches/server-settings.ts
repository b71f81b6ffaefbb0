/**
 * GET /server_settings per realm, serialized: the rendered description and the web-public
 * channel check are the costly parts. Keyed by realm and by the one request-dependent
 * field (whether the client is incompatible).
 */
import { GenerationalMap } from "./generational-map.js";

export class ServerSettingsCache {
  private readonly bodies = new GenerationalMap<string, { realmId: number; json: string }>(1000);

  /** The response's fields as JSON (without braces), from `render` on a miss. */
  async fields(realmId: number, incompatible: boolean, render: () => Promise<string>): Promise<string> {
    const entry = await this.bodies.getOrLoad(`${realmId}:${incompatible}`, async () => ({ realmId, json: await render() }));
    return entry.json;
  }

  flushRealm(realmId: number): void {
    this.bodies.flush((_, entry) => entry.realmId === realmId);
  }

  flushAll(): void {
    this.bodies.flush();
  }
}

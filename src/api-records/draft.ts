/** Draft rows → the API's draft object (spec 2.2): {id, type, to, topic, content, timestamp}. */
import type { Draft } from "../db/schema.js";

export interface ApiDraft {
  id: number;
  type: string;
  to: number[];
  topic: string;
  content: string;
  timestamp: number;
}

export function toApiDraft(d: Draft): ApiDraft {
  return { id: d.id, type: d.type, to: JSON.parse(d.to_json) as number[], topic: d.topic, content: d.content, timestamp: d.last_edit_time };
}

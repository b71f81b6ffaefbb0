/** Messages the read and reaction rows need, sent through the API once per phase. */
import { api, form } from "../http-client.js";
import { SEND_CHANNEL } from "../seed.js";
import type { PhaseEnv } from "../row.js";

export const SEND_BODY = form({ type: "stream", to: SEND_CHANNEL, topic: "load", content: "Hello **everyone**, see https://example.com :smile:" });

/** Sends `count` channel messages as the owner; returns their ids. */
export async function sendMessages(env: PhaseEnv, count: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) ids.push((await api<{ id: number }>(env.port, env.realm.owner, "POST", "/messages", SEND_BODY)).id);
  return ids;
}

/** At least 100 messages in the channel (GET /messages newest 100 needs a full page); their ids. */
export const channelMessages = (env: PhaseEnv): Promise<number[]> => env.shared("channel-messages", () => sendMessages(env, 100));

/** Writes: sending to a 50-member channel, reacting, drafts, scheduled messages. */
import { form } from "../http-client.js";
import { runLoad } from "../load.js";
import type { Row } from "../row.js";
import { CONNECTIONS } from "../settings.js";
import { SEND_CHANNEL } from "../seed.js";
import { withServerCpu } from "../server-cpu.js";
import { SEND_BODY, sendMessages } from "./messages-setup.js";

const SENDS_PER_SECOND = 200;
const send = { method: "POST" as const, path: "/api/v1/messages", body: SEND_BODY };

export const writeRows: Row[] = [
  {
    name: "POST /messages (50-member channel)",
    users: 1000,
    shape: "POST",
    run: (env) => withServerCpu(env.pid, (measuring) => runLoad(env.port, { ...send, auth: env.realm.owner }, measuring)),
  },
  {
    name: `POST /messages at ${SENDS_PER_SECOND} sends/s`,
    users: 1000,
    run: (env) => withServerCpu(env.pid, async (measuring) => ({ ...(await runLoad(env.port, { ...send, auth: env.realm.owner, rate: SENDS_PER_SECOND }, measuring)), note: "50-member channel, fixed rate" })),
  },
  {
    name: "reacting (add then remove)",
    users: 1000,
    shape: "POST",
    run: async (env) => {
      // One message per connection so concurrent add/remove cycles never collide; three times
      // as many, because autocannon may hand a restarted connection a fresh path.
      const ids = await sendMessages(env, 3 * CONNECTIONS);
      const paths = ids.map((id) => `/api/v1/messages/${id}/reactions`);
      const cycle = {
        path: paths[0],
        paths,
        sequence: [
          { method: "POST" as const, body: "emoji_name=tada" },
          { method: "DELETE" as const, body: "emoji_name=tada" },
        ],
        auth: env.realm.owner,
      };
      return withServerCpu(env.pid, (measuring) => runLoad(env.port, cycle, measuring));
    },
  },
  {
    name: "POST /drafts (one draft)",
    users: 1000,
    shape: "POST",
    run: (env) =>
      runLoad(env.port, {
        method: "POST",
        path: "/api/v1/drafts",
        body: form({ drafts: JSON.stringify([{ type: "", to: [], topic: "", content: "A draft" }]) }),
        auth: env.realm.owner,
      }),
  },
  {
    name: "POST /scheduled_messages",
    users: 1000,
    shape: "POST",
    run: (env) =>
      runLoad(env.port, {
        method: "POST",
        path: "/api/v1/scheduled_messages",
        // Far in the future: the delivery job stays asleep during the run.
        body: form({ type: "stream", to: env.realm.channels.get(SEND_CHANNEL)!, topic: "load", content: "Later **everyone**", scheduled_delivery_timestamp: 4102444800 }),
        auth: env.realm.owner,
      }),
  },
];

/** The heading of the message list, and in a topic the mute/follow setting. */
import { useContext } from "preact/hooks";
import { api } from "../api.js";
import { Ctl } from "../controller.js";
import { narrowKey } from "../narrow.js";
import { POLICY } from "../types.js";

export function NarrowHeader() {
  const ctl = useContext(Ctl);
  const s = ctl.store;
  const n = ctl.narrow!;
  // In a channel, typing in any of its topics shows.
  const key = narrowKey(n);
  const typing = s.typing.filter((t) => (t.narrow === key || (n.kind === "channel" && t.narrow.startsWith(`topic/${n.streamId}/`))) && t.until > Date.now());
  let title: string;
  if (n.kind === "dm") title = n.userIds.length ? `Direct messages with ${n.userIds.map((id) => s.userName(id)).join(", ")}` : "Messages to yourself";
  else title = `#${s.channelName(n.streamId)}${n.kind === "topic" ? ` > ${n.topic || "(no topic)"}` : ""}`;
  return (
    <div class="narrow-header">
      <h1 id="narrow-title">{title}</h1>
      {n.kind === "topic" && (
        <label class="topic-policy">
          Topic notifications
          <select
            value={String(s.topicPolicy(n.streamId, n.topic))}
            onChange={(e) => ctl.call(() => api("POST", "/user_topics", { stream_id: n.streamId, topic: n.topic, visibility_policy: Number(e.currentTarget.value) }))}
          >
            <option value={String(POLICY.none)}>Default</option>
            <option value={String(POLICY.muted)}>Muted</option>
            <option value={String(POLICY.unmuted)}>Unmuted</option>
            <option value={String(POLICY.followed)}>Followed</option>
          </select>
        </label>
      )}
      <p class="typing" aria-live="polite">
        {typing.length > 0 && `${typing.map((t) => s.userName(t.userId)).join(", ")} ${typing.length > 1 ? "are" : "is"} typing…`}
      </p>
    </div>
  );
}

/**
 * The left column: channels with unread counts (the open channel lists its topics), direct
 * conversations, people with presence dots and status, scheduled messages and reminders.
 */
import { useContext } from "preact/hooks";
import { api } from "../api.js";
import { Ctl } from "../controller.js";
import { narrowKey, type Narrow } from "../narrow.js";

function Unread(props: { n: number }) {
  if (!props.n) return null;
  return (
    <span class="unread-count" aria-label={`${props.n} unread`}>
      {props.n}
    </span>
  );
}

function NarrowLink(props: { to: Narrow; label: string; unread: number; class?: string; title?: string }) {
  const ctl = useContext(Ctl);
  const current = ctl.narrow && narrowKey(ctl.narrow) === narrowKey(props.to);
  return (
    <a href={`#${narrowKey(props.to)}`} class={`narrow-link ${props.class ?? ""}`} aria-current={current ? "page" : undefined} title={props.title}>
      <span class="label">{props.label}</span>
      <Unread n={props.unread} />
    </a>
  );
}

export function Sidebar(props: { open: boolean }) {
  const ctl = useContext(Ctl);
  const s = ctl.store;
  const me = s.me.user_id;
  const openStream = ctl.narrow && ctl.narrow.kind !== "dm" ? ctl.narrow.streamId : undefined;
  const dms = [...s.dmConversations.entries()].sort((a, b) => b[1] - a[1]);
  const people = [...s.users.values()].filter((u) => !u.is_bot && u.is_active !== false).sort((a, b) => a.full_name.localeCompare(b.full_name));
  return (
    <nav id="sidebar" class={`sidebar${props.open ? " open" : ""}`} aria-label="Channels and conversations">
      <h2 id="channels-heading">Channels</h2>
      <ul aria-labelledby="channels-heading">
        {s.subscriptions.map((sub) => (
          <li key={sub.stream_id}>
            <NarrowLink to={{ kind: "channel", streamId: sub.stream_id }} label={`# ${sub.name}`} unread={s.channelUnread(sub.stream_id)} />
            {openStream === sub.stream_id && (
              <ul class="topics" aria-label={`Topics in ${sub.name}`}>
                {(s.topics.get(sub.stream_id) ?? []).slice(0, 15).map((t) => {
                  const muted = s.isTopicMuted(sub.stream_id, t.name);
                  const policy = s.topicPolicy(sub.stream_id, t.name);
                  return (
                    <li key={t.name}>
                      <NarrowLink
                        to={{ kind: "topic", streamId: sub.stream_id, topic: t.name }}
                        label={(t.name || "(no topic)") + (muted ? " (muted)" : policy === 3 ? " (followed)" : "")}
                        unread={s.topicUnread(sub.stream_id, t.name)}
                        class={muted ? "muted" : ""}
                      />
                    </li>
                  );
                })}
              </ul>
            )}
          </li>
        ))}
      </ul>

      <h2 id="dms-heading">Direct messages</h2>
      <ul aria-labelledby="dms-heading">
        {dms.map(([key]) => {
          const ids = key ? key.split(",").map(Number) : [];
          const label = ids.length ? ids.map((id) => s.userName(id)).join(", ") : `${s.userName(me)} (you)`;
          return (
            <li key={key}>
              <NarrowLink to={{ kind: "dm", userIds: ids }} label={label} unread={s.dmUnread(key)} />
            </li>
          );
        })}
        {dms.length === 0 && <li class="empty">No conversations yet.</li>}
      </ul>

      <h2 id="people-heading">People</h2>
      <ul aria-labelledby="people-heading" class="people">
        {people.map((u) => {
          const presence = s.presenceOf(u.user_id);
          const status = s.statuses.get(u.user_id);
          return (
            <li key={u.user_id}>
              <a href={`#${narrowKey({ kind: "dm", userIds: u.user_id === me ? [] : [u.user_id] })}`} class="person" data-user-id={u.user_id}>
                <span class={`presence ${presence}`} role="img" aria-label={presence === "active" ? "Active" : presence === "idle" ? "Idle" : "Offline"} />
                <span class="label">
                  {u.full_name}
                  {u.user_id === me ? " (you)" : ""}
                </span>
                {status?.status_text && <span class="status-text">{status.status_text}</span>}
              </a>
            </li>
          );
        })}
      </ul>

      {s.scheduled.length > 0 && (
        <>
          <h2 id="scheduled-heading">Scheduled messages</h2>
          <ul aria-labelledby="scheduled-heading" class="scheduled">
            {s.scheduled.map((m) => (
              <li key={m.scheduled_message_id}>
                <span>
                  {new Date(m.scheduled_delivery_timestamp * 1000).toLocaleString()}: {m.type === "stream" ? `#${s.channelName(m.to as number)} > ${m.topic}` : (m.to as number[]).map((id) => s.userName(id)).join(", ")} — {m.content.slice(0, 60)}
                  {m.failed ? " (failed)" : ""}
                </span>
                <button type="button" onClick={() => ctl.call(() => api("DELETE", `/scheduled_messages/${m.scheduled_message_id}`))} aria-label={`Cancel scheduled message: ${m.content.slice(0, 40)}`}>
                  Cancel
                </button>
              </li>
            ))}
          </ul>
        </>
      )}

      {s.reminders.length > 0 && (
        <>
          <h2 id="reminders-heading">Reminders</h2>
          <ul aria-labelledby="reminders-heading" class="reminders">
            {s.reminders.map((r) => (
              <li key={r.reminder_id}>
                <span>
                  {new Date(r.scheduled_delivery_timestamp * 1000).toLocaleString()}: message {r.reminder_target_message_id}
                </span>
                <button type="button" onClick={() => ctl.call(() => api("DELETE", `/reminders/${r.reminder_id}`))} aria-label={`Cancel reminder for message ${r.reminder_target_message_id}`}>
                  Cancel
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
    </nav>
  );
}

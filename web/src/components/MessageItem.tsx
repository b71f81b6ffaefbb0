/** One message: sender, time, the server's HTML, reactions, and the actions on it. */
import { useContext, useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { api } from "../api.js";
import { Ctl } from "../controller.js";
import { emojiChar, showEmojiAsText, type EmojiEntry } from "../emoji.js";
import type { Message, Reaction } from "../types.js";
import { EmojiPicker } from "./EmojiPicker.js";
import { Popover } from "./Popover.js";
import { fromLocalInput, toLocalInput } from "./time.js";

type Open = "" | "react" | "edit" | "delete" | "remind";

export function MessageItem(props: { message: Message; showTopic: boolean }) {
  const ctl = useContext(Ctl);
  const m = props.message;
  const mine = m.sender_id === ctl.store.me.user_id;
  const [open, setOpen] = useState<Open>("");
  const close = () => setOpen("");
  const unread = ctl.store.unread.has(m.id);
  const body = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => showEmojiAsText(body.current), [m.content, open]);

  const toggleReaction = (name: string, code: string, type: string, had: boolean) =>
    ctl.call(() => api(had ? "DELETE" : "POST", `/messages/${m.id}/reactions`, { emoji_name: name, emoji_code: code, reaction_type: type }));

  const pick = (e: EmojiEntry) => {
    close();
    const had = m.reactions.some((r) => r.emoji_code === e.code && r.user_id === ctl.store.me.user_id);
    void toggleReaction(e.name, e.code, "unicode_emoji", had);
  };

  return (
    <article class={`message${unread ? " unread" : ""}`} data-message-id={m.id} aria-label={`Message from ${m.sender_full_name}`}>
      {props.showTopic && m.type === "stream" && (
        <a class="topic-label" href={`#topic/${m.stream_id}/${encodeURIComponent(m.subject)}`}>
          {m.subject || "(no topic)"}
        </a>
      )}
      <header class="message-meta">
        <span class="sender">{m.sender_full_name}</span>
        <time dateTime={new Date(m.timestamp * 1000).toISOString()}>{new Date(m.timestamp * 1000).toLocaleString()}</time>
        {m.last_edit_timestamp && <span class="edited">(edited)</span>}
      </header>
      {open === "edit" ? (
        <EditForm message={m} onDone={close} />
      ) : (
        <div ref={body} class="message-content" dangerouslySetInnerHTML={{ __html: m.content }} />
      )}
      <Reactions message={m} onToggle={(r, had) => toggleReaction(r.emoji_name, r.emoji_code, r.reaction_type, had)} />
      <div class="message-actions" role="toolbar" aria-label="Message actions">
        <button type="button" onClick={() => setOpen("react")} aria-haspopup="dialog" aria-expanded={open === "react"}>
          Add reaction
        </button>
        <button type="button" onClick={() => setOpen("remind")} aria-haspopup="dialog" aria-expanded={open === "remind"}>
          Remind me
        </button>
        {mine && (
          <button type="button" onClick={() => setOpen("edit")}>
            Edit
          </button>
        )}
        {mine && (
          <button type="button" onClick={() => setOpen("delete")} aria-haspopup="dialog" aria-expanded={open === "delete"}>
            Delete
          </button>
        )}
      </div>
      {open === "react" && <EmojiPicker onPick={pick} onClose={close} />}
      {open === "remind" && <RemindForm message={m} onClose={close} />}
      {open === "delete" && (
        <Popover label="Delete message" onClose={close}>
          <p>Delete this message?</p>
          <button
            type="button"
            class="danger"
            onClick={async () => {
              close();
              await ctl.call(() => api("DELETE", `/messages/${m.id}`));
            }}
          >
            Delete message
          </button>
          <button type="button" onClick={close}>
            Cancel
          </button>
        </Popover>
      )}
    </article>
  );
}

function Reactions(props: { message: Message; onToggle: (r: Reaction, had: boolean) => void }) {
  const ctl = useContext(Ctl);
  const groups = new Map<string, Reaction[]>();
  for (const r of props.message.reactions) groups.set(`${r.reaction_type}:${r.emoji_code}`, [...(groups.get(`${r.reaction_type}:${r.emoji_code}`) ?? []), r]);
  if (!groups.size) return null;
  return (
    <ul class="reactions" aria-label="Reactions">
      {[...groups.values()].map((rs) => {
        const first = rs[0]!;
        const had = rs.some((r) => r.user_id === ctl.store.me.user_id);
        const who = rs.map((r) => ctl.store.userName(r.user_id)).join(", ");
        return (
          <li key={first.emoji_code}>
            <button type="button" class="reaction" aria-pressed={had} title={`${who} reacted with :${first.emoji_name}:`} aria-label={`${first.emoji_name}: ${rs.length}, ${who}`} onClick={() => props.onToggle(first, had)}>
              {first.reaction_type === "unicode_emoji" ? emojiChar(first.emoji_code) : `:${first.emoji_name}:`} {rs.length}
            </button>
          </li>
        );
      })}
    </ul>
  );
}

function EditForm(props: { message: Message; onDone: () => void }) {
  const ctl = useContext(Ctl);
  const [raw, setRaw] = useState<string | undefined>(undefined);
  const box = useRef<HTMLTextAreaElement>(null);
  // The list holds HTML: fetch the raw Markdown once.
  useEffect(() => {
    void ctl.call(() => api<{ message: { content: string } }>("GET", `/messages/${props.message.id}`, { apply_markdown: false })).then((r) => setRaw(r?.message.content ?? ""));
  }, []);
  useEffect(() => {
    if (raw !== undefined) box.current?.focus();
  }, [raw === undefined]);
  const save = async (e: Event) => {
    e.preventDefault();
    const ok = await ctl.call(() => api("PATCH", `/messages/${props.message.id}`, { content: raw ?? "" }));
    if (ok) props.onDone();
  };
  return (
    <form class="edit-form" onSubmit={save} onKeyDown={(e) => e.key === "Escape" && props.onDone()}>
      <label>
        Edit message
        <textarea ref={box} value={raw ?? ""} disabled={raw === undefined} onInput={(e) => setRaw(e.currentTarget.value)} rows={3} />
      </label>
      <button type="submit" disabled={raw === undefined}>
        Save
      </button>
      <button type="button" onClick={props.onDone}>
        Cancel
      </button>
    </form>
  );
}

function RemindForm(props: { message: Message; onClose: () => void }) {
  const ctl = useContext(Ctl);
  const [when, setWhen] = useState(toLocalInput(Date.now() + 3600_000));
  const [note, setNote] = useState("");
  const submit = async (e: Event) => {
    e.preventDefault();
    const at = fromLocalInput(when);
    const res = await ctl.call(() => api("POST", "/reminders", { message_id: props.message.id, scheduled_delivery_timestamp: at, note: note || undefined }));
    if (res) {
      props.onClose();
      ctl.say(`Reminder set for ${new Date(at * 1000).toLocaleString()}`);
    }
  };
  return (
    <Popover label="Set a reminder" onClose={props.onClose}>
      <form onSubmit={submit}>
        <label>
          Remind me at
          <input type="datetime-local" value={when} required onInput={(e) => setWhen(e.currentTarget.value)} />
        </label>
        <label>
          Note (optional)
          <input type="text" value={note} maxLength={1000} onInput={(e) => setNote(e.currentTarget.value)} />
        </label>
        <button type="submit">Set reminder</button>
      </form>
    </Popover>
  );
}

/**
 * The compose box of the current narrow: topic (in channels), the message with a Markdown
 * preview, attach a file, send now (Enter; Shift+Enter for a new line) or schedule for later.
 * The text is saved as a draft while you type and comes back with the narrow.
 */
import { useContext, useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, uploadFile, type Params } from "../api.js";
import { Ctl } from "../controller.js";
import { DraftSaver } from "../drafts.js";
import { showEmojiAsText } from "../emoji.js";
import { narrowKey, sameTopic, type Narrow } from "../narrow.js";
import type { Draft } from "../types.js";
import { TypingNotifier } from "../typing.js";
import { Popover } from "./Popover.js";
import { fromLocalInput, toLocalInput } from "./time.js";

export function Compose() {
  const ctl = useContext(Ctl);
  const narrow = ctl.narrow!;
  const me = ctl.store.me.user_id;
  const [topic, setTopic] = useState("");
  const [content, setContent] = useState("");
  const [preview, setPreview] = useState<string | undefined>(undefined);
  const [status, setStatus] = useState("");
  const [scheduling, setScheduling] = useState(false);
  const [busy, setBusy] = useState(false);
  const box = useRef<HTMLTextAreaElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const previewBox = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => showEmojiAsText(previewBox.current), [preview]);
  const typing = useMemo(() => new TypingNotifier(), []);
  const key = narrowKey(narrow);
  const draft = useMemo(() => findDraft(ctl.store.drafts.values(), narrow, me), [key]);
  const saver = useMemo(() => new DraftSaver(draft?.id, (ok, err) => setStatus(ok ? "Draft saved" : `Draft not saved: ${err}`)), [key]);

  // A new narrow: its draft (if any) fills the box; leaving it saves what was typed.
  useEffect(() => {
    typing.stop();
    setContent(draft?.content ?? "");
    setTopic(narrow.kind === "topic" ? narrow.topic : (draft?.topic ?? ""));
    setPreview(undefined);
    setStatus("");
    return () => saver.flush();
  }, [key]);

  const streamId = narrow.kind === "dm" ? undefined : narrow.streamId;
  const dmTo = narrow.kind === "dm" ? (narrow.userIds.length ? narrow.userIds : [me]) : [];
  const draftOf = (text: string, t: string): Draft =>
    streamId !== undefined ? { type: "stream", to: [streamId], topic: t, content: text } : { type: "private", to: dmTo, topic: "", content: text };
  const typingTarget = (t: string): Params | undefined => {
    if (streamId !== undefined) return t.trim() ? { type: "stream", stream_id: streamId, topic: t } : undefined;
    return narrow.kind === "dm" && narrow.userIds.length ? { type: "direct", to: narrow.userIds } : undefined;
  };
  const recipient = (): Params => (streamId !== undefined ? { type: "stream", to: streamId, topic } : { type: "direct", to: dmTo });

  const edited = (text: string, t: string) => {
    setContent(text);
    setTopic(t);
    setStatus("");
    saver.changed(draftOf(text, t));
    if (text) typing.typed(typingTarget(t));
  };

  const sent = (note: string) => {
    typing.stop();
    saver.discard();
    setContent("");
    setPreview(undefined);
    setStatus(note);
    // Back to the box, unless the user has gone elsewhere while the request ran.
    const active = document.activeElement;
    if (!active || active === document.body || box.current?.closest(".compose-wrap")?.contains(active)) box.current?.focus();
  };

  const send = async () => {
    if (!content.trim() || busy) return;
    setBusy(true);
    const ok = await ctl.call(() => api("POST", "/messages", { ...recipient(), content }));
    setBusy(false);
    if (ok) sent("");
  };

  const schedule = async (at: number) => {
    setBusy(true);
    const ok = await ctl.call(() => api("POST", "/scheduled_messages", { ...recipient(), content, scheduled_delivery_timestamp: at }));
    setBusy(false);
    if (ok) {
      setScheduling(false);
      sent(`Message scheduled for ${new Date(at * 1000).toLocaleString()}`);
    }
  };

  const togglePreview = async () => {
    if (preview !== undefined) return setPreview(undefined);
    const res = await ctl.call(() => api<{ rendered: string }>("POST", "/messages/render", { content }));
    if (res) setPreview(res.rendered);
  };

  const attach = async (file: File) => {
    setStatus(`Uploading ${file.name}…`);
    const res = await ctl.call(() => uploadFile(file));
    if (fileInput.current) fileInput.current.value = "";
    if (!res) return setStatus("");
    const el = box.current;
    const at = el ? el.selectionStart : content.length;
    const link = `[${file.name.replace(/[[\]]/g, "")}](${res.url})`;
    edited(content.slice(0, at) + link + content.slice(at), topic);
    setStatus(`Uploaded ${file.name}`);
  };

  const target = streamId !== undefined ? `#${ctl.store.channelName(streamId)}` : narrow.kind === "dm" && narrow.userIds.length ? narrow.userIds.map((id) => ctl.store.userName(id)).join(", ") : "yourself";

  return (
    <div class="compose-wrap">
    <form
      class="compose"
      aria-label="Compose message"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      {streamId !== undefined && (
        <label class="compose-topic">
          Topic
          <input type="text" value={topic} maxLength={60} onInput={(e) => edited(content, e.currentTarget.value)} placeholder="Topic" />
        </label>
      )}
      {preview === undefined ? (
        <label class="compose-message">
          <span>Message {target}</span>
          <textarea
            id="compose-box"
            ref={box}
            value={content}
            rows={3}
            maxLength={ctl.store.maxMessageLength}
            onInput={(e) => edited(e.currentTarget.value, topic)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
                e.preventDefault();
                void send();
              }
            }}
            onDrop={(e) => {
              const file = e.dataTransfer?.files[0];
              if (file) {
                e.preventDefault();
                void attach(file);
              }
            }}
          />
        </label>
      ) : (
        <div ref={previewBox} class="preview" aria-label="Preview" role="region" tabIndex={0} dangerouslySetInnerHTML={{ __html: preview || "<p><em>Nothing to preview</em></p>" }} />
      )}
      <div class="compose-buttons">
        <button type="button" onClick={togglePreview} aria-pressed={preview !== undefined}>
          {preview === undefined ? "Preview" : "Write"}
        </button>
        <button type="button" onClick={() => fileInput.current?.click()}>
          Attach file
        </button>
        <input ref={fileInput} type="file" class="visually-hidden" tabIndex={-1} aria-label="File to attach" onChange={(e) => e.currentTarget.files?.[0] && attach(e.currentTarget.files[0])} />
        <button type="button" onClick={() => setScheduling(true)} disabled={!content.trim()} aria-haspopup="dialog" aria-expanded={scheduling}>
          Schedule
        </button>
        <button type="submit" class="primary" disabled={busy || !content.trim()}>
          Send
        </button>
        <span class="compose-status" role="status">
          {status}
        </span>
      </div>
    </form>
    {scheduling && <ScheduleForm onSchedule={schedule} onClose={() => setScheduling(false)} />}
    </div>
  );
}

function ScheduleForm(props: { onSchedule: (at: number) => void; onClose: () => void }) {
  const [when, setWhen] = useState(toLocalInput(Date.now() + 3600_000));
  return (
    <Popover label="Schedule message" onClose={props.onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          props.onSchedule(fromLocalInput(when));
        }}
      >
        <label>
          Send at
          <input type="datetime-local" value={when} required onInput={(e) => setWhen(e.currentTarget.value)} />
        </label>
        <button type="submit">Schedule message</button>
      </form>
    </Popover>
  );
}

/** The newest draft addressed where the narrow points (a channel narrow takes any of its topics). */
function findDraft(drafts: Iterable<Draft>, n: Narrow, me: number): Draft | undefined {
  let best: Draft | undefined;
  for (const d of drafts) {
    const match =
      n.kind === "dm"
        ? d.type === "private" && [...d.to].sort((a, b) => a - b).join(",") === (n.userIds.length ? n.userIds : [me]).join(",")
        : d.type === "stream" && d.to[0] === n.streamId && (n.kind === "channel" || sameTopic(d.topic, n.topic));
    if (match && (!best || (d.timestamp ?? 0) >= (best.timestamp ?? 0))) best = d;
  }
  return best;
}

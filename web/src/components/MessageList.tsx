/**
 * The messages of the current narrow, oldest first. Scrolling near the top loads older ones
 * (keeping the view where it was); new messages keep the view at the bottom if it was there.
 * Unread messages are marked read once they have been on screen.
 */
import { useContext, useEffect, useLayoutEffect, useRef } from "preact/hooks";
import { Ctl } from "../controller.js";
import { narrowKey } from "../narrow.js";
import { MessageItem } from "./MessageItem.js";

export function MessageList() {
  const ctl = useContext(Ctl);
  const narrow = ctl.narrow!;
  const key = narrowKey(narrow);
  const list = ctl.store.lists.get(key);
  const scroller = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const heightBefore = useRef(0);
  const firstId = useRef(0);
  const observer = useRef<IntersectionObserver | undefined>(undefined);

  useEffect(() => {
    observer.current = new IntersectionObserver(
      (entries) => {
        for (const e of entries) if (e.isIntersecting) ctl.markRead(Number((e.target as HTMLElement).dataset.messageId));
      },
      { root: scroller.current, threshold: 0.5 },
    );
    return () => observer.current?.disconnect();
  }, []);

  useEffect(() => {
    atBottom.current = true;
  }, [key]);

  // After each render: keep the bottom in view, or keep older messages from pushing the view down.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const newFirst = list?.ids[0] ?? 0;
    if (firstId.current && newFirst < firstId.current && !atBottom.current) el.scrollTop += el.scrollHeight - heightBefore.current;
    else if (atBottom.current) el.scrollTop = el.scrollHeight;
    firstId.current = newFirst;
    heightBefore.current = el.scrollHeight;
    observer.current?.disconnect();
    for (const node of el.querySelectorAll(".message.unread")) observer.current?.observe(node);
  });

  const onScroll = () => {
    const el = scroller.current!;
    atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
    heightBefore.current = el.scrollHeight;
    if (el.scrollTop < 200) void ctl.fetchMessages(narrow, "older");
  };

  const messages = (list?.ids ?? []).map((id) => ctl.store.messages.get(id)).filter((m) => m !== undefined);
  let lastTopic: string | undefined;
  return (
    <div class="message-scroller" ref={scroller} onScroll={onScroll} tabIndex={0} aria-label="Messages" role="log" aria-busy={!list || list.loading}>
      {list?.foundOldest && <p class="list-start">This is the start of the conversation.</p>}
      {list && !list.foundOldest && messages.length > 0 && (
        <button type="button" class="load-older" onClick={() => ctl.fetchMessages(narrow, "older")} disabled={list.loading}>
          {list.loading ? "Loading…" : "Load older messages"}
        </button>
      )}
      {(!list || list.loading) && messages.length === 0 && <p>Loading…</p>}
      {list && !list.loading && messages.length === 0 && <p class="empty">No messages here yet.</p>}
      {messages.map((m) => {
        const showTopic = narrow.kind === "channel" && m.subject !== lastTopic;
        lastTopic = m.subject;
        return <MessageItem key={m.id} message={m} showTopic={showTopic} />;
      })}
    </div>
  );
}

/** The emoji picker: a search field and a grid of buttons; popular emoji until you type. */
import { useContext, useEffect, useState } from "preact/hooks";
import { Ctl } from "../controller.js";
import { emojiChar, loadEmoji, POPULAR, type EmojiEntry } from "../emoji.js";
import { Popover } from "./Popover.js";

const SHOWN = 120;

export function EmojiPicker(props: { onPick: (e: EmojiEntry) => void; onClose: () => void }) {
  const ctl = useContext(Ctl);
  const [all, setAll] = useState<EmojiEntry[] | undefined>(undefined);
  const [error, setError] = useState("");
  const [query, setQuery] = useState("");
  useEffect(() => {
    loadEmoji(ctl.store.emojiDataUrl).then(setAll, (err: Error) => setError(err.message));
  }, []);
  const q = query.trim().toLowerCase().replace(/^:|:$/g, "");
  const shown = q ? (all ?? POPULAR).filter((e) => e.names.some((n) => n.includes(q))).slice(0, SHOWN) : POPULAR;
  return (
    <Popover label="Add a reaction" onClose={props.onClose} class="emoji-picker">
      <label>
        Search emoji
        <input type="search" value={query} onInput={(e) => setQuery(e.currentTarget.value)} autocomplete="off" />
      </label>
      {error && <p role="alert">{error}</p>}
      <div class="emoji-grid" role="group" aria-label={q ? "Matching emoji" : "Popular emoji"}>
        {shown.map((e) => (
          <button type="button" key={e.code} title={`:${e.name}:`} aria-label={e.name} onClick={() => props.onPick(e)}>
            {emojiChar(e.code)}
          </button>
        ))}
        {q && all && shown.length === 0 && <p>No emoji match.</p>}
      </div>
    </Popover>
  );
}

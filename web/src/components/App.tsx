/** The page: header (you, settings, log out), sidebar, and the narrow with its compose box. */
import { useContext, useEffect, useState } from "preact/hooks";
import { cookie } from "../api.js";
import { Ctl } from "../controller.js";
import { Compose } from "./Compose.js";
import { MessageList } from "./MessageList.js";
import { NarrowHeader } from "./NarrowHeader.js";
import { Settings } from "./Settings.js";
import { Sidebar } from "./Sidebar.js";

export function App() {
  const ctl = useContext(Ctl);
  const [, setTick] = useState(0);
  const [settings, setSettings] = useState(false);
  // Narrow screens: the sidebar is a panel the menu button opens; picking a narrow closes it.
  const [menu, setMenu] = useState(false);
  useEffect(() => {
    ctl.store.onChange(() => setTick((t) => t + 1));
    addEventListener("hashchange", () => setMenu(false));
    // Typing notices expire and presence ages without events: look again every few seconds.
    const timer = setInterval(() => setTick((t) => t + 1), 5000);
    return () => clearInterval(timer);
  }, []);
  const s = ctl.store;
  if (!ctl.ready) {
    return (
      <main class="loading" aria-busy="true">
        <p>{ctl.trouble ? "Cannot reach the server; trying again…" : "Loading…"}</p>
      </main>
    );
  }
  const status = s.statuses.get(s.me.user_id)?.status_text;
  const unread = s.unreadCount((p) => p.kind === "dm" || !s.isTopicMuted(p.streamId, p.topic));
  document.title = `${unread ? `(${unread}) ` : ""}${s.realmName || "Parley"}`;
  return (
    <>
      <a
        class="skip-link"
        href="#compose-box"
        onClick={(e) => {
          // The hash names narrows: move focus without changing it.
          e.preventDefault();
          document.getElementById("compose-box")?.focus();
        }}
      >
        Skip to the compose box
      </a>
      <header class="top" role="banner">
        <button type="button" class="menu-toggle" aria-controls="sidebar" aria-expanded={menu} onClick={() => setMenu(!menu)}>
          Menu
        </button>
        <span class="realm-name">{s.realmName || "Parley"}</span>
        <span class="me">
          {s.me.full_name}
          {status && <span class="status-text"> — {status}</span>}
        </span>
        <button type="button" onClick={() => setSettings(true)} aria-haspopup="dialog">
          Settings
        </button>
        <form method="post" action="/accounts/logout/" class="logout">
          <input type="hidden" name="csrfmiddlewaretoken" value={cookie("csrftoken")} />
          <button type="submit">Log out</button>
        </form>
      </header>
      {ctl.trouble && (
        <p class="banner" role="alert">
          Cannot reach the server; trying again…
        </p>
      )}
      <div class="layout">
        <Sidebar open={menu} />
        <main aria-labelledby="narrow-title">
          {ctl.narrow && (
            <>
              <NarrowHeader />
              <MessageList />
              <Compose />
            </>
          )}
        </main>
      </div>
      <p class="notice" role="status">
        {ctl.notice}
      </p>
      {settings && <Settings onClose={() => setSettings(false)} />}
    </>
  );
}

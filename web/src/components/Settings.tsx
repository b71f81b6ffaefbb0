/** The settings dialog: your status, and your password. */
import { useContext, useRef, useState } from "preact/hooks";
import { api } from "../api.js";
import { Ctl } from "../controller.js";
import { useDialogFocus } from "./dialog-focus.js";

export function Settings(props: { onClose: () => void }) {
  const ctl = useContext(Ctl);
  const ref = useRef<HTMLDivElement>(null);
  const mine = ctl.store.statuses.get(ctl.store.me.user_id);
  const [statusText, setStatusText] = useState(mine?.status_text ?? "");
  const [emojiName, setEmojiName] = useState(mine?.emoji_name ?? "");
  const [oldPassword, setOldPassword] = useState("");
  const [newPassword, setNewPassword] = useState("");
  const [message, setMessage] = useState("");
  const [error, setError] = useState("");

  useDialogFocus(ref, props.onClose, true);

  const run = async (fn: () => Promise<unknown>, done: string) => {
    setMessage("");
    setError("");
    try {
      await fn();
      setMessage(done);
    } catch (err) {
      setError((err as Error).message);
    }
  };

  return (
    <div class="modal-backdrop">
      <div ref={ref} class="modal" role="dialog" aria-modal="true" aria-labelledby="settings-title">
        <h2 id="settings-title">Settings</h2>
        <form
          aria-labelledby="status-title"
          onSubmit={(e) => {
            e.preventDefault();
            void run(() => api("POST", "/users/me/status", { status_text: statusText, emoji_name: emojiName }), "Status saved.");
          }}
        >
          <h3 id="status-title">Your status</h3>
          <label>
            Status text
            <input type="text" value={statusText} maxLength={60} onInput={(e) => setStatusText(e.currentTarget.value)} />
          </label>
          <label>
            Status emoji name (optional)
            <input type="text" value={emojiName} onInput={(e) => setEmojiName(e.currentTarget.value)} placeholder="e.g. calendar" />
          </label>
          <button type="submit">Save status</button>
          <button
            type="button"
            onClick={() => {
              setStatusText("");
              setEmojiName("");
              void run(() => api("POST", "/users/me/status", { status_text: "", emoji_name: "" }), "Status cleared.");
            }}
          >
            Clear status
          </button>
        </form>
        <form
          aria-labelledby="password-title"
          onSubmit={(e) => {
            e.preventDefault();
            void run(async () => {
              await api("PATCH", "/settings", { old_password: oldPassword, new_password: newPassword });
              setOldPassword("");
              setNewPassword("");
            }, "Password changed.");
          }}
        >
          <h3 id="password-title">Change password</h3>
          <label>
            Current password
            <input type="password" autocomplete="current-password" required value={oldPassword} onInput={(e) => setOldPassword(e.currentTarget.value)} />
          </label>
          <label>
            New password
            <input type="password" autocomplete="new-password" required value={newPassword} onInput={(e) => setNewPassword(e.currentTarget.value)} />
          </label>
          <button type="submit">Change password</button>
        </form>
        <p role="status">{message}</p>
        {error && <p role="alert" class="error">{error}</p>}
        <button type="button" onClick={props.onClose}>
          Close
        </button>
      </div>
    </div>
  );
}

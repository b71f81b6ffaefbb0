/**
 * Drafts saved as you type: the compose box's text is stored on the server (/json/drafts)
 * one second after the last keystroke, so another tab or a reload finds it. Saves run one
 * after another, so a slow POST never creates the same draft twice.
 */
import { api } from "./api.js";
import type { Draft } from "./types.js";

export const DRAFT_DELAY_MS = 1000;

export class DraftSaver {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private pending: Draft | undefined;
  private chain: Promise<unknown> = Promise.resolve();

  /** `id`: the draft being edited (from the server's list), or none yet. */
  constructor(
    private id: number | undefined,
    private readonly onSaved: (ok: boolean, error?: string) => void,
  ) {}

  changed(draft: Draft): void {
    clearTimeout(this.timer);
    this.pending = draft;
    this.timer = setTimeout(() => this.flush(), DRAFT_DELAY_MS);
  }

  /** Saves a waiting change now (the compose box moves to another narrow). */
  flush(): void {
    clearTimeout(this.timer);
    const draft = this.pending;
    this.pending = undefined;
    if (draft) this.enqueue(() => this.save(draft));
  }

  /** The message was sent (or scheduled): the draft goes. */
  discard(): void {
    clearTimeout(this.timer);
    this.pending = undefined;
    this.enqueue(() => this.remove());
  }

  private enqueue(task: () => Promise<void>): void {
    this.chain = this.chain.then(task).catch((err: Error) => this.onSaved(false, err.message));
  }

  private async save(draft: Draft): Promise<void> {
    if (!draft.content.trim()) return this.remove();
    const body = { ...draft, timestamp: Math.floor(Date.now() / 1000) };
    delete body.id;
    if (this.id === undefined) {
      const res = await api<{ ids: number[] }>("POST", "/drafts", { drafts: [body] });
      this.id = res.ids[0];
    } else {
      await api("PATCH", `/drafts/${this.id}`, { draft: body });
    }
    this.onSaved(true);
  }

  private async remove(): Promise<void> {
    const id = this.id;
    this.id = undefined;
    if (id !== undefined) await api("DELETE", `/drafts/${id}`);
  }
}

/**
 * Typing notices we send, with upstream's timing: "start" at most every 10 s while typing,
 * "stop" 5 s after the last keystroke or when the message is sent or the target changes.
 */
import { api, type Params } from "./api.js";

const START_EVERY_MS = 10000;
const STOP_AFTER_MS = 5000;

export class TypingNotifier {
  private target: Params | undefined;
  private lastStart = 0;
  private stopTimer: ReturnType<typeof setTimeout> | undefined;

  /** A keystroke in the compose box; `target` is the recipient parameters (undefined: none to notify). */
  typed(target: Params | undefined): void {
    if (JSON.stringify(target) !== JSON.stringify(this.target)) this.stop();
    if (!target) return;
    this.target = target;
    if (Date.now() - this.lastStart > START_EVERY_MS) {
      this.lastStart = Date.now();
      void api("POST", "/typing", { ...target, op: "start" }).catch(() => {});
    }
    clearTimeout(this.stopTimer);
    this.stopTimer = setTimeout(() => this.stop(), STOP_AFTER_MS);
  }

  stop(): void {
    clearTimeout(this.stopTimer);
    const target = this.target;
    this.target = undefined;
    if (target && this.lastStart) void api("POST", "/typing", { ...target, op: "stop" }).catch(() => {});
    this.lastStart = 0;
  }
}

/**
 * Focus handling shared by popovers and the settings dialog: focus moves to the first control
 * inside when it opens and back to what opened it when it closes; Escape closes it; a modal
 * one keeps Tab inside. The opener is taken at the first render, while it still has focus,
 * and a layout effect (not a later, after-paint one) moves focus in before any key can arrive.
 */
import type { RefObject } from "preact";
import { useLayoutEffect, useRef } from "preact/hooks";

const CONTROLS = "input, textarea, select, button";

export function useDialogFocus(ref: RefObject<HTMLElement | null>, onClose: () => void, modal: boolean): void {
  const opener = useRef(document.activeElement as HTMLElement | null);
  useLayoutEffect(() => {
    ref.current?.querySelector<HTMLElement>(CONTROLS)?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        e.preventDefault();
        onClose();
      } else if (modal && e.key === "Tab" && ref.current) {
        const all = [...ref.current.querySelectorAll<HTMLElement>(CONTROLS)].filter((el) => !el.hasAttribute("disabled"));
        const first = all[0];
        const last = all[all.length - 1];
        if (e.shiftKey && document.activeElement === first) {
          e.preventDefault();
          last?.focus();
        } else if (!e.shiftKey && document.activeElement === last) {
          e.preventDefault();
          first?.focus();
        }
      }
    };
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("keydown", onKey);
      if (opener.current?.isConnected) opener.current.focus();
    };
  }, []);
}

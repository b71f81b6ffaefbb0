/**
 * A small dialog anchored under what opened it: Escape or a click outside closes it, and focus
 * goes back to the opener. The first field (or button) inside gets focus when it opens.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { useDialogFocus } from "./dialog-focus.js";

export function Popover(props: { label: string; onClose: () => void; children: ComponentChildren; class?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useDialogFocus(ref, props.onClose, false);
  useEffect(() => {
    const onClick = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) props.onClose();
    };
    // Registered after the click that opened the popover has finished.
    const t = setTimeout(() => document.addEventListener("mousedown", onClick));
    return () => {
      clearTimeout(t);
      document.removeEventListener("mousedown", onClick);
    };
  }, []);
  return (
    <div ref={ref} role="dialog" aria-label={props.label} class={`popover ${props.class ?? ""}`}>
      {props.children}
    </div>
  );
}

/**
 * A small dialog anchored under what opened it: Escape or a click outside closes it, and focus
 * goes back to the opener. The first field (or button) inside gets focus when it opens.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";

export function Popover(props: { label: string; onClose: () => void; children: ComponentChildren; class?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    ref.current?.querySelector<HTMLElement>("input, textarea, select, button")?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        e.preventDefault();
        props.onClose();
      }
    };
    const onClick = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) props.onClose();
    };
    document.addEventListener("keydown", onKey);
    // Registered after the click that opened the popover has finished.
    const t = setTimeout(() => document.addEventListener("mousedown", onClick));
    return () => {
      clearTimeout(t);
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("mousedown", onClick);
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  return (
    <div ref={ref} role="dialog" aria-label={props.label} class={`popover ${props.class ?? ""}`}>
      {props.children}
    </div>
  );
}

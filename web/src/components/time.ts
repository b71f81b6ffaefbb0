/** <input type="datetime-local"> values ("2026-11-27T14:05", local time) to and from times. */

export function toLocalInput(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** Unix seconds of a local datetime-local value. */
export function fromLocalInput(value: string): number {
  return Math.floor(new Date(value).getTime() / 1000);
}

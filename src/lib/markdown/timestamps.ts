/** <time:…> global times, rendered as <time datetime="…Z">…</time>. */
import type { StateInline } from "markdown-it";
import { escapeAttr, escapeText } from "./escape.js";
import { pushHtml } from "./mentions.js";

const TIME_RE = /<time:([^>]*?)>/y;

// Offsets (minutes east of UTC) for common timezone abbreviations.
const TZ: Record<string, number> = {
  UTC: 0, GMT: 0, Z: 0, UT: 0, WET: 0, WEST: 60, BST: 60, CET: 60, CEST: 120, MET: 60, MEST: 120,
  EET: 120, EEST: 180, MSK: 180, IST: 330, PKT: 300, ICT: 420, WIB: 420, HKT: 480, SGT: 480,
  AWST: 480, PHT: 480, JST: 540, KST: 540, ACST: 570, AEST: 600, AEDT: 660, NZST: 720, NZDT: 780,
  HST: -600, AKST: -540, AKDT: -480, PST: -480, PDT: -420, MST: -420, MDT: -360, CST: -360,
  CDT: -300, EST: -300, EDT: -240, AST: -240, ADT: -180, NST: -210, NDT: -150, BRT: -180, ART: -180,
};
const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const WEEKDAYS = /^(mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?$/i;

function utcMillis(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number): number | null {
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return null;
  const t = Date.UTC(y, mo - 1, d, h, mi, s, ms);
  return new Date(t).getUTCDate() === d ? t : null;
}

function parseOffset(s: string): number | null {
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(s);
  if (!m) return TZ[s.toUpperCase()] ?? null;
  return (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
}

/** Parse the time formats people type (ISO 8601, "31 Dec 2017 5:30 pm IST", epoch seconds). */
export function parseTime(input: string): number | null {
  const s = input.trim();
  const iso =
    /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?\s*(Z|[+-]\d{2}:?\d{2}|[A-Za-z]{1,5})?$/.exec(s);
  if (iso) {
    const off = iso[8] ? parseOffset(iso[8]) : 0;
    if (off === null) return null;
    const ms = iso[7] ? Math.round(Number("0." + iso[7]) * 1000) : 0;
    const t = utcMillis(+iso[1], +iso[2], +iso[3], +(iso[4] ?? 0), +(iso[5] ?? 0), +(iso[6] ?? 0), ms);
    return t === null ? null : t - off * 60000;
  }
  if (/^-?\d+(\.\d+)?$/.test(s)) return Math.round(Number(s) * 1000);
  const words = s.replace(/,/g, " ").split(/\s+/).filter(Boolean);
  let y: number | undefined, mo: number | undefined, d: number | undefined;
  let h = 0, mi = 0, sec = 0, off = 0, ampm: string | undefined;
  for (const w of words) {
    const lw = w.toLowerCase();
    const month = MONTHS.indexOf(lw.slice(0, 3));
    const time = /^(\d{1,2}):(\d{2})(?::(\d{2}))?(am|pm)?$/i.exec(w);
    if (month >= 0 && /^[a-z]+\.?$/.test(lw) && mo === undefined) mo = month + 1;
    else if (WEEKDAYS.test(w)) continue;
    else if (time) {
      h = +time[1];
      mi = +time[2];
      sec = +(time[3] ?? 0);
      if (time[4]) ampm = time[4].toLowerCase();
    } else if (lw === "am" || lw === "pm") ampm = lw;
    else if (/^\d{4}$/.test(w) && y === undefined) y = +w;
    else if (/^\d{1,2}(st|nd|rd|th)?$/i.test(w) && d === undefined) d = parseInt(w, 10);
    else {
      const o = parseOffset(w);
      if (o === null) return null;
      off = o;
    }
  }
  if (y === undefined || mo === undefined || d === undefined) return null;
  if (ampm) {
    if (h < 1 || h > 12) return null;
    h = (h % 12) + (ampm === "pm" ? 12 : 0);
  }
  const t = utcMillis(y, mo, d, h, mi, sec, 0);
  return t === null ? null : t - off * 60000;
}

/** Python-style isoformat in UTC with "Z". */
export function isoUtc(ms: number): string {
  const d = new Date(ms);
  const base = d.toISOString().slice(0, 19);
  const frac = d.getUTCMilliseconds();
  return base + (frac ? "." + String(frac * 1000).padStart(6, "0") : "") + "Z";
}

export function timestampRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x3c) return false;
  if (!state.src.startsWith("<time:", state.pos) || state.src.indexOf(">", state.pos) < 0) return false;
  TIME_RE.lastIndex = state.pos;
  const m = TIME_RE.exec(state.src);
  if (!m || state.pos + m[0].length > state.posMax) return false;
  if (!silent) {
    const ms = parseTime(m[1]);
    if (ms === null || !Number.isFinite(ms) || Math.abs(ms) > 8.64e15) {
      pushHtml(state, `<span class="timestamp-error">${escapeText("Invalid time format: " + m[1])}</span>`);
    } else {
      pushHtml(state, `<time datetime="${escapeAttr(isoUtc(ms))}">${escapeText(m[1])}</time>`);
    }
  }
  state.pos += m[0].length;
  return true;
}

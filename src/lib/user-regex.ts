/**
 * The one place where regular expressions written by users (linkifier patterns) are
 * compiled: on RE2, a linear-time engine (no backtracking), as upstream does.
 *
 * The engine is Google's RE2 compiled to WebAssembly (re2-wasm; a native RE2 binding
 * does not build on this Node). Its heap is a fixed 16 MB that the garbage collector never
 * frees, and each compiled expression may use up to RE2's 8 MB budget for its automata;
 * so callers borrow a program inside `withUserRegex`, and only a couple are kept alive
 * between calls, freed explicitly when evicted.
 */
import { RE2 } from "re2-wasm";

/** The engine every user-supplied pattern runs on (asserted by the robustness tests). */
export const USER_REGEX_ENGINE = "re2";

export interface UserRegexMatch {
  /** UTF-16 offset of the match in the searched text. */
  index: number;
  /** Numbered groups: [0] is the whole match. */
  groups: Array<string | undefined>;
}

export interface UserRegex {
  readonly engine: typeof USER_REGEX_ENGINE;
  /** The leftmost match starting at or after `from` (the text before `from` is context for ^ and \b). */
  searchFrom(text: string, from: number): UserRegexMatch | null;
}

/** Initial window of a search (see searchFrom). */
const SEARCH_WINDOW = 256;

/** Counters for tests: every compilation and search goes through here. */
export const userRegexStats = { compiled: 0, freed: 0, searches: 0 };

/** re2-wasm keeps its C++ object here; `delete()` returns its memory to the heap. */
interface Re2Internals {
  wrapper: { delete(): void };
}

/** RE2's reason for rejecting `source` (e.g. "missing ): (foo"), or null when it compiles. */
export function userRegexError(source: string, flags = ""): string | null {
  try {
    return withUserRegex(source, flags, () => null);
  } catch (e) {
    if (e instanceof UserRegexSyntaxError) return e.reason;
    throw e;
  }
}

export class UserRegexSyntaxError extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/**
 * Compiled programs kept for reuse between calls (compiling costs milliseconds in this
 * build), least recently used first. Only two: each may grow up to RE2's 8 MB budget of
 * automata, and the heap is 16 MB.
 */
const KEPT_PROGRAMS = 2;
const kept = new Map<string, RE2>();

function free(re: RE2): void {
  (re as unknown as Re2Internals).wrapper.delete();
  userRegexStats.freed++;
}

/** Frees every kept program (also the way out when the heap ran out). */
export function freeKeptUserRegexes(): void {
  for (const re of kept.values()) free(re);
  kept.clear();
}

function compile(source: string, re2Flags: string): RE2 {
  try {
    const re = new RE2(source, re2Flags);
    userRegexStats.compiled++;
    return re;
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) {
      // Out of heap: free the kept programs and let RE2 refuse it as too large.
      freeKeptUserRegexes();
      throw new UserRegexSyntaxError("pattern too large - compile failed");
    }
    // The binding reports "Invalid regular expression: /<source, slashes escaped>/<flags>: <RE2's reason>".
    const escaped = source === "" ? "(?:)" : source.replace(/(^|[^\\])((?:\\\\)*)\//g, "$1$2\\/");
    const prefix = `Invalid regular expression: /${escaped}/${re2Flags}: `;
    const message = (e as Error).message;
    throw new UserRegexSyntaxError(message.startsWith(prefix) ? message.slice(prefix.length) : message);
  }
}

/**
 * Run `use` with `source` (RE2 syntax; flags from "i", "s", "m") compiled on RE2; the
 * program is then kept for the next call or freed. Throws UserRegexSyntaxError when RE2
 * refuses the pattern.
 */
export function withUserRegex<T>(source: string, flags: string, use: (re: UserRegex) => T): T {
  const re2Flags = "gu" + flags.replace(/[^ism]/g, "");
  const key = re2Flags + "/" + source;
  const re = kept.get(key) ?? compile(source, re2Flags);
  kept.delete(key); // while in use, no eviction can free it
  let alive = true;
  let healthy = true;
  const handle: UserRegex = {
    engine: USER_REGEX_ENGINE,
    searchFrom(text, from) {
      if (!alive) throw new Error("user regex used after it was freed");
      // The binding copies and re-indexes the whole input on every call, so a search sees
      // a window (one character of context before `from`) that doubles until it holds a
      // match ending inside it, or reaches the end of the text: many short matches cost
      // linear time. (A pattern whose preferred alternative needs text beyond the window
      // while a lesser one ends inside it is the one case that can differ from a search
      // of the whole text.)
      const start = Math.max(0, from - 1);
      for (let size = SEARCH_WINDOW; ; size *= 2) {
        const end = Math.min(text.length, from + size);
        userRegexStats.searches++;
        re.lastIndex = from - start;
        let m: ReturnType<RE2["exec"]>;
        try {
          m = re.exec(text.slice(start, end));
        } catch (e) {
          if (!(e instanceof WebAssembly.RuntimeError)) throw e;
          // Out of heap: no match, and start over with an empty heap.
          healthy = false;
          freeKeptUserRegexes();
          return null;
        }
        if (end === text.length) return m ? { index: start + m.index, groups: [...m] } : null;
        if (m && start + m.index + m[0]!.length < end) return { index: start + m.index, groups: [...m] };
      }
    },
  };
  try {
    return use(handle);
  } finally {
    alive = false;
    if (healthy) {
      kept.set(key, re);
      while (kept.size > KEPT_PROGRAMS) {
        const [oldest, old] = kept.entries().next().value as [string, RE2];
        kept.delete(oldest);
        free(old);
      }
    } else free(re);
  }
}

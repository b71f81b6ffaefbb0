/** For files whose URL names their content (a hash or a never-reused name): cached for a year, never revalidated. */
export const IMMUTABLE = "public, max-age=31536000, immutable";
/** API answers (JSON): never stored by a browser or proxy. */
export const NO_STORE = "no-store, no-cache, must-revalidate, max-age=0";

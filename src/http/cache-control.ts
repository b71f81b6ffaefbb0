/** For files whose URL names their content (a hash or a never-reused name): cached for a year, never revalidated. */
export const IMMUTABLE = "public, max-age=31536000, immutable";

/** The API version this server advertises (spec 9). */
export const CHAT_FEATURE_LEVEL = 416;
/** The upstream release whose API we implement, plus our own version. */
export const CHAT_VERSION = "11.0-parley-0.1.0";
/** Not a fork of upstream's source: the merge base equals the version. */
export const CHAT_MERGE_BASE = CHAT_VERSION;

/** JSON values as parsed from upstream's file and from Parley's answers. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

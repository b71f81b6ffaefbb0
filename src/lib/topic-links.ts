/**
 * Topic links (the `topic_links` field of every fetched channel message), remembered
 * instead of recomputed on each fetch.
 *
 * An entry's key is the topic plus a digest of the linkifier list it was computed with
 * (patterns and URL templates, in order), as loaded by the fetch. Adding, editing,
 * removing or reordering a linkifier changes the digest, so the next fetch misses and
 * recomputes: there is no invalidation step to forget, it holds across server processes,
 * and entries of an old list age out of the LRU. (A stored column would need every topic of
 * the realm recomputed whenever a linkifier changes.) Topic links depend on nothing else:
 * not the realm URL, not the reader, so realms with the same list share entries.
 */
import { createHash } from "node:crypto";
import { topicLinksOf, type TopicLink } from "./markdown/index.js";
import { memoByText } from "./memo-by-text.js";

type LinkifierList = ReadonlyArray<{ pattern: string; url_template: string }>;

const MAX_ENTRIES = 20_000;
/** Linkifier lists remembered (their digest, their parsed form): a realm's list rarely changes. */
const MAX_LISTS = 100;
const cache = new Map<string, TopicLink[]>();

/** Counters for tests: topics computed (cache misses). */
export const topicLinkStats = { computed: 0 };

/** Digests remembered by the list's text: a send digested the same list every time. */
const digestOfText = memoByText(MAX_LISTS, (text) => createHash("sha256").update(text).digest("base64url"));

function digest(linkifiers: LinkifierList): string {
  return digestOfText(JSON.stringify(linkifiers.map((l) => [l.pattern, l.url_template])));
}

/**
 * The topic links of `topics` (computed together for those not remembered: each
 * linkifier's program runs once for all of them), then a lookup for any topic.
 */
export function topicLinker(linkifiers: LinkifierList, topics: readonly string[]): (topic: string) => TopicLink[] {
  return linkerOf(digest(linkifiers) + "\n", linkifiers, topics);
}

/** Linkifier lists by their JSON text, parsed and digested once (a realm's list rarely changes). */
const listsByJson = new Map<string, { prefix: string; linkifiers: LinkifierList }>();

/**
 * The topic links of one topic, the linkifiers given as the JSON text of their rows in any
 * order (`[{"id":…,"order":…,"pattern":…,"url_template":…},…]`, as a statement returns
 * them): the same entries as topicLinker's, without parsing and hashing the list on every call.
 */
export function topicLinksWithJson(linkifiersJson: string, topic: string): TopicLink[] {
  let list = listsByJson.get(linkifiersJson);
  if (!list) {
    type Row = LinkifierList[number] & { id: number; order: number };
    const linkifiers = (JSON.parse(linkifiersJson) as Row[]).sort((a, b) => a.order - b.order || a.id - b.id);
    list = { prefix: digest(linkifiers) + "\n", linkifiers };
    if (listsByJson.size >= MAX_LISTS) listsByJson.delete(listsByJson.keys().next().value!);
    listsByJson.set(linkifiersJson, list);
  }
  return linkerOf(list.prefix, list.linkifiers, [])(topic);
}

function linkerOf(prefix: string, linkifiers: LinkifierList, topics: readonly string[]): (topic: string) => TopicLink[] {
  const lookup = (topic: string): TopicLink[] | undefined => {
    const hit = cache.get(prefix + topic);
    if (hit) {
      cache.delete(prefix + topic); // most recently used last
      cache.set(prefix + topic, hit);
    }
    return hit;
  };
  const remember = (batch: readonly string[]): void => {
    if (batch.length === 0) return;
    const computed = topicLinksOf(batch, [...linkifiers]);
    topicLinkStats.computed += batch.length;
    batch.forEach((topic, i) => cache.set(prefix + topic, computed[i]));
    for (const key of cache.keys()) {
      if (cache.size <= MAX_ENTRIES) break;
      cache.delete(key);
    }
  };
  remember([...new Set(topics)].filter((t) => lookup(t) === undefined));
  return (topic) => {
    let links = lookup(topic);
    if (!links) {
      remember([topic]);
      links = lookup(topic)!;
    }
    // Callers get their own copy: API records are built from it.
    return links.map((l) => ({ ...l }));
  };
}

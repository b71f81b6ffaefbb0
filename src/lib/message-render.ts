/**
 * Rendering message content for storage: preloads what the Markdown renderer needs
 * (users, groups and channels the content names, linkifiers, the realm URL) in a few
 * queries, then renders.
 */
import type { Realm } from "../db/schema.js";
import type { Queryable } from "../db/tx.js";
import { findChannelsByNames } from "../db/queries/channels.js";
import { activeUsersByFullNames, linkifiersOfRealm, namedGroupsByNames, usersByIds } from "../db/queries/messages.js";
import { collectReferences, renderMarkdown, type MarkdownLookups, type RenderResult } from "./markdown/index.js";
import { topicLinker } from "./topic-links.js";

/** A rendering, with the realm's linkifiers as loaded for it (reused for topic links). */
export type RenderedContent = Omit<RenderResult, "references"> & { linkifiers: MarkdownLookups["linkifiers"] };

/** The lookups for rendering this content in this realm (one query per table). */
export async function loadLookups(
  db: Queryable,
  realm: Realm,
  realmUrl: string,
  content: string,
  loadLinkifiers: () => Promise<MarkdownLookups["linkifiers"]> = () => linkifiersOfRealm(db, realm.id),
): Promise<MarkdownLookups> {
  const refs = collectReferences(content);
  const [byName, byId, groups, channels, linkifiers] = await Promise.all([
    activeUsersByFullNames(db, realm.id, refs.userNames),
    usersByIds(db, realm.id, refs.userIds),
    namedGroupsByNames(db, realm.id, refs.groupNames),
    findChannelsByNames(db, realm.id, refs.channelNames),
    loadLinkifiers(),
  ]);
  const users = [...byName, ...byId.filter((u) => u.is_active)];
  return {
    usersByName: (name) => {
      const key = name.toLowerCase();
      const seen = new Set<number>();
      return users.filter((u) => u.full_name.toLowerCase() === key && !seen.has(u.id) && seen.add(u.id)).map((u) => ({ id: u.id, full_name: u.full_name }));
    },
    userById: (id) => {
      const u = users.find((x) => x.id === id);
      return u ? { id: u.id, full_name: u.full_name } : undefined;
    },
    groupByName: (name) => {
      const g = groups.find((x) => x.name !== null && x.name.toLowerCase() === name.toLowerCase());
      return g ? { id: g.id, name: g.name! } : undefined;
    },
    channelByName: (name) => {
      const c = channels.find((x) => x.name.toLowerCase() === name.toLowerCase() && !x.deactivated);
      return c ? { id: c.id, name: c.name } : undefined;
    },
    linkifiers,
    realmUrl,
  };
}

/** Renders content as the realm's users would see it. */
/** `realmUrl` is the organization's URL (links to it become relative). */
/** `loadLinkifiers`: the realm's linkifiers, when the caller has them cached. */
export async function renderMessageContent(
  db: Queryable,
  realm: Realm,
  realmUrl: string,
  content: string,
  loadLinkifiers?: () => Promise<MarkdownLookups["linkifiers"]>,
): Promise<RenderedContent> {
  const lookups = await loadLookups(db, realm, realmUrl, content, loadLinkifiers);
  const { references: _references, ...rendered } = renderMarkdown(content, lookups);
  return { ...rendered, linkifiers: lookups.linkifiers };
}

/**
 * Topic links (linkifiers and raw URLs in the topic), with the realm's linkifiers loaded
 * once; `topics` are the ones the caller will ask for (computed together when not cached).
 */
export async function loadTopicLinker(
  db: Queryable,
  realm: Realm,
  known: MarkdownLookups["linkifiers"] | undefined,
  topics: readonly string[],
): Promise<(topic: string) => Array<{ text: string; url: string }>> {
  const linkifiers = known ?? (await linkifiersOfRealm(db, realm.id));
  return topicLinker(linkifiers, topics);
}

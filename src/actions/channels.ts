/** Channel state changes: creation (with its recipient), updates, archiving, and their events. */
import { activeRealmUsers } from "../db/queries/users.js";
import type { AppContext } from "../context.js";
import { nowSeconds } from "../context.js";
import { withTransaction, type Tx } from "../db/tx.js";
import type { Channel, Realm, User } from "../db/schema.js";
import { systemGroupIds } from "../db/queries/user-groups.js";
import {
  addDefaultChannel,
  defaultChannelIds,
  findChannelById,
  findChannelsByIds,
  insertChannel,
  removeDefaultChannel,
  updateChannel,
} from "../db/queries/channels.js";
import { subscriberCounts, subscriberIdsByChannel } from "../db/queries/subscriptions.js";
import { isGuest } from "../lib/roles.js";
import type { Queryable } from "../db/tx.js";
import { channelAudience } from "../lib/channels.js";
import { renderMarkdown } from "../lib/markdown/index.js";
import { listLinkifiers } from "../db/queries/linkifiers.js";
import { realmUrl } from "../lib/realm-host.js";
import { toApiChannel, type ChannelGroupDefaults } from "../api-records/channel.js";
import { sendEventOnCommit } from "../events/send.js";

export interface NewChannelSpec {
  name: string;
  description: string;
  inviteOnly: boolean;
  isWebPublic: boolean;
  /** undefined: upstream default (true for public channels, false for private ones). */
  historyPublicToSubscribers?: boolean;
}

/**
 * Renders a channel description with the message Markdown renderer (upstream renders
 * descriptions like messages, without previews). Lookups are loaded once per call.
 */
export async function renderChannelDescription(tx: Queryable, ctx: AppContext, realm: Realm, text: string): Promise<string> {
  if (text === "") return "";
  const users = await tx.selectFrom("users").select(["id", "full_name"]).where("realm_id", "=", realm.id).where("is_active", "=", 1).execute();
  const groups = await tx
    .selectFrom("user_groups")
    .select(["id", "name"])
    .where("realm_id", "=", realm.id)
    .where("deactivated", "=", 0)
    .where("name", "is not", null)
    .execute();
  const channels = await tx.selectFrom("channels").select(["id", "name"]).where("realm_id", "=", realm.id).where("deactivated", "=", 0).execute();
  const linkifiers = await listLinkifiers(tx, realm.id);
  const byId = new Map(users.map((u) => [u.id, u]));
  return renderMarkdown(text, {
    usersByName: (name) => users.filter((u) => u.full_name.toLowerCase() === name.toLowerCase()),
    userById: (id) => byId.get(id),
    groupByName: (name) => {
      const g = groups.find((x) => x.name === name);
      return g ? { id: g.id, name: g.name! } : undefined;
    },
    channelByName: (name) => channels.find((c) => c.name.toLowerCase() === name.toLowerCase()),
    linkifiers,
    realmUrl: realmUrl(realm.string_id, ctx.config.externalHost),
  }).html;
}

export async function channelGroupDefaults(db: Queryable, realmId: number): Promise<ChannelGroupDefaults> {
  const ids = await systemGroupIds(db, realmId);
  return {
    administrators: ids.get("role:administrators")!,
    everyone: ids.get("role:everyone")!,
    nobody: ids.get("role:nobody")!,
  };
}

/**
 * Inserts channels (names already validated and known to be free) and announces them.
 * `subscriberIds` are the users about to be subscribed: a private channel's creation
 * event goes only to them and to realm administrators.
 */
export async function createChannelsInTx(
  tx: Tx,
  ctx: AppContext,
  realm: Realm,
  creator: User | null,
  specs: readonly NewChannelSpec[],
  subscriberIds: readonly number[],
): Promise<Channel[]> {
  const groups = await channelGroupDefaults(tx, realm.id);
  const now = nowSeconds(ctx);
  const created: Channel[] = [];
  for (const spec of specs) {
    const rendered = await renderChannelDescription(tx, ctx, realm, spec.description);
    const history = spec.inviteOnly ? (spec.historyPublicToSubscribers ?? false) : true;
    created.push(
      await insertChannel(tx, {
        realm_id: realm.id,
        name: spec.name,
        description: spec.description,
        rendered_description: rendered,
        invite_only: spec.inviteOnly ? 1 : 0,
        is_web_public: spec.isWebPublic ? 1 : 0,
        history_public_to_subscribers: history || spec.isWebPublic ? 1 : 0,
        date_created: now,
        creator_id: creator?.id ?? null,
        can_remove_subscribers_group_id: groups.administrators,
        can_administer_channel_group_id: groups.nobody,
        can_send_message_group_id: groups.everyone,
      }),
    );
  }
  if (created.length > 0) {
    const users = await activeRealmUsers(tx, realm.id);
    for (const channel of created) {
      // Recipients: those who may see the new channel's metadata (see channelAudience).
      const event = {
        type: "stream",
        op: "create",
        streams: [toApiChannel(channel, 0, groups)],
      };
      sendEventOnCommit(tx, ctx, realm.id, event, channelAudience(channel, users, subscriberIds));
    }
  }
  return created;
}

/** The public "general" channel every new organization gets, marked as a default channel. */
export async function createRealmDefaultChannelInTx(tx: Tx, ctx: AppContext, realm: Realm): Promise<Channel> {
  const [general] = await createChannelsInTx(tx, ctx, realm, null, [{ name: "general", description: "", inviteOnly: false, isWebPublic: false }], []);
  await addDefaultChannel(tx, realm.id, general!.id);
  return general!;
}

export interface ChannelChanges {
  name?: string;
  description?: string;
  inviteOnly?: boolean;
  isWebPublic?: boolean;
  historyPublicToSubscribers?: boolean;
  isDefault?: boolean;
}

/**
 * Applies validated changes and sends one `stream` update event per property, to the
 * users who could see the channel before or after the change (so a channel turning
 * private still tells former viewers it changed, as upstream does for its subscribers).
 */
export async function doUpdateChannel(ctx: AppContext, realm: Realm, channel: Channel, changes: ChannelChanges): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    const users = await activeRealmUsers(tx, realm.id);
    const subscribers = (await subscriberIdsByChannel(tx, realm.id, [channel.id])).get(channel.id) ?? [];
    let current = channel;
    const emit = (event: Record<string, unknown>, before: Channel, after: Channel) => {
      const audience = new Set([...channelAudience(before, users, subscribers), ...channelAudience(after, users, subscribers)]);
      sendEventOnCommit(tx, ctx, realm.id, { type: "stream", op: "update", ...event }, [...audience].sort((a, b) => a - b));
    };
    if (changes.name !== undefined && changes.name !== current.name) {
      await updateChannel(tx, realm.id, channel.id, { name: changes.name });
      const next = { ...current, name: changes.name };
      emit({ property: "name", value: changes.name, name: current.name, stream_id: channel.id }, current, next);
      current = next;
    }
    if (changes.description !== undefined && changes.description !== current.description) {
      const rendered = await renderChannelDescription(tx, ctx, realm, changes.description);
      await updateChannel(tx, realm.id, channel.id, { description: changes.description, rendered_description: rendered });
      const next = { ...current, description: changes.description, rendered_description: rendered };
      emit(
        { property: "description", value: changes.description, rendered_description: rendered, name: current.name, stream_id: channel.id },
        current,
        next,
      );
      current = next;
    }
    const inviteOnly = changes.inviteOnly ?? current.invite_only === 1;
    const webPublic = changes.isWebPublic ?? current.is_web_public === 1;
    let history = changes.historyPublicToSubscribers ?? current.history_public_to_subscribers === 1;
    if (!inviteOnly || webPublic) history = true;
    const next = { ...current, invite_only: inviteOnly ? 1 : 0, is_web_public: webPublic ? 1 : 0, history_public_to_subscribers: history ? 1 : 0 };
    if (next.invite_only !== current.invite_only || next.is_web_public !== current.is_web_public || next.history_public_to_subscribers !== current.history_public_to_subscribers) {
      await updateChannel(tx, realm.id, channel.id, {
        invite_only: next.invite_only,
        is_web_public: next.is_web_public,
        history_public_to_subscribers: next.history_public_to_subscribers,
      });
      if (next.invite_only !== current.invite_only) {
        // Upstream: one invite_only event carrying the other two permission fields.
        emit(
          {
            property: "invite_only",
            value: inviteOnly,
            history_public_to_subscribers: history,
            is_web_public: webPublic,
            name: current.name,
            stream_id: channel.id,
          },
          current,
          next,
        );
      } else {
        if (next.is_web_public !== current.is_web_public) {
          emit({ property: "is_web_public", value: webPublic, name: current.name, stream_id: channel.id }, current, next);
        }
        if (next.history_public_to_subscribers !== current.history_public_to_subscribers) {
          emit({ property: "history_public_to_subscribers", value: history, name: current.name, stream_id: channel.id }, current, next);
        }
      }
      if (next.invite_only === 1) await removeDefaultChannel(tx, realm.id, channel.id);
    }
    if (changes.isDefault !== undefined) {
      const isDefault = (await defaultChannelIds(tx, realm.id)).includes(channel.id);
      if (changes.isDefault !== isDefault) {
        if (changes.isDefault) await addDefaultChannel(tx, realm.id, channel.id);
        else await removeDefaultChannel(tx, realm.id, channel.id);
        await notifyDefaultChannels(tx, ctx, realm, users);
      }
    }
  });
}

/** `default_streams` with the realm's full list, to every active non-guest user (upstream). */
async function notifyDefaultChannels(tx: Tx, ctx: AppContext, realm: Realm, users: ReadonlyArray<{ id: number; role: number }>): Promise<void> {
  const channels = await findChannelsByIds(tx, realm.id, await defaultChannelIds(tx, realm.id));
  const counts = await subscriberCounts(tx, realm.id, channels.map((c) => c.id));
  const groups = await channelGroupDefaults(tx, realm.id);
  const event = { type: "default_streams", default_streams: channels.map((c) => toApiChannel(c, counts.get(c.id) ?? 0, groups)) };
  sendEventOnCommit(tx, ctx, realm.id, event, users.filter((u) => !isGuest(u)).map((u) => u.id));
}

/** Archives a channel: deactivated, no longer a default channel; `stream` delete event to its viewers. */
export async function doArchiveChannel(ctx: AppContext, realm: Realm, channel: Channel): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    const fresh = (await findChannelById(tx, realm.id, channel.id))!;
    const users = await activeRealmUsers(tx, realm.id);
    const subscribers = (await subscriberIdsByChannel(tx, realm.id, [channel.id])).get(channel.id) ?? [];
    const groups = await channelGroupDefaults(tx, realm.id);
    await updateChannel(tx, realm.id, channel.id, { deactivated: 1 });
    await removeDefaultChannel(tx, realm.id, channel.id);
    const archived = { ...fresh, deactivated: 1 };
    const event = { type: "stream", op: "delete", streams: [toApiChannel(archived, subscribers.length, groups)], stream_ids: [channel.id] };
    // Recipients: everyone who could see the channel.
    sendEventOnCommit(tx, ctx, realm.id, event, channelAudience(fresh, users, subscribers));
  });
}

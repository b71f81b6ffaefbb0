/**
 * The objects the authorization matrix (test/robustness/authz-table.ts) acts on: one caller
 * per role, and for every kind of per-user object one that belongs to someone else (the
 * second member, "other"), plus helpers that make a fresh object of the caller's own.
 */
import sodium from "libsodium-wrappers";
import type { Channel, User } from "../../src/db/schema.js";
import { doCreateUser } from "../../src/actions/users-create.js";
import { isGuest, Role } from "../../src/lib/roles.js";
import { createChannel } from "./channels.js";
import { expectSuccess, type Params } from "./client.js";
import { pngImage, postFiles } from "./multipart.js";
import { startTestServer, type TestServer } from "./server.js";

/** Every kind of caller the matrix tries. */
export const ROLES = ["owner", "admin", "moderator", "member", "guest", "bot", "deactivated", "foreign", "anonymous"] as const;
export type RoleName = (typeof ROLES)[number];

/** The role's caller and whose "own" objects a request names. */
export interface Caller {
  role: RoleName;
  /** null: no credentials. */
  user: User | null;
  /**
   * The owner of the caller's own objects. A deactivated caller or one without credentials
   * sends exactly the request the member would (the member's own objects).
   */
  actor: User;
}

export interface World {
  s: TestServer;
  callers: Record<RoleName, Caller>;
  /** The second member: owner of the "others' objects". */
  other: User;
  /** A member nobody acts as, for user-targeted endpoints. */
  victim: User;
  /** A deactivated member, for reactivation. */
  dormant: User;
  /** A second bot of the member's (the member's own bot, which tests may deactivate). */
  memberBot: User;
  /** Public channel with every live role of the realm subscribed (the guest too). */
  pub: Channel;
  /** A second public channel with the same subscribers (a destination for moves). */
  pubSecond: Channel;
  /** Public channel nobody is subscribed to but `other`. */
  pubUnsubscribed: Channel;
  /** Private channel with only `other` subscribed (shared history). */
  priv: Channel;
  /** Private channel with only the member (the bot's owner) and other subscribed, and other's message there. */
  privMember: Channel;
  privMemberMessage: number;
  /** other's message in `pub` (topic "matrix"), in `priv`, and other's direct message to victim. */
  otherPubMessage: number;
  otherPrivMessage: number;
  otherDirectMessage: number;
  /** other's message in `pubUnsubscribed`. */
  otherUnsubscribedMessage: number;
  /** other's push device registration (its account id, and the rows as registered). */
  otherPushAccountId: number;
  otherPushDevices: unknown[];
  otherDraft: number;
  otherScheduled: number;
  otherReminder: number;
  otherNavFragment: string;
  /** other's upload, not linked from any message. */
  otherUpload: { id: number; path: string };
  /** other's upload linked from a message in `pub`. */
  otherSharedUpload: { path: string };
  /** other's upload linked from a message in `priv`. */
  otherPrivateUpload: { path: string };
  otherEmoji: string;
  /** A user group created by other (members: other). */
  otherGroup: number;
  /** A system group (role:members). */
  systemGroup: number;
  /** other's pending email invitation. */
  otherInvite: number;
  relayPublicKey: string;
  /** The other organization's public channel and a message in it (the foreign caller's own world). */
  foreignPub: Channel;
  foreignUnsubscribed: Channel;
  foreignMessage: number;
  /** Unique suffixes for names. */
  unique(prefix: string): string;
}

/** The user's organization's public channel, one the user is not in, and a readable message. */
export function home(w: World, user: User): { pub: Channel; unsubscribed: Channel; message: number } {
  return user.realm_id === w.s.other.realm.id
    ? { pub: w.foreignPub, unsubscribed: w.foreignUnsubscribed, message: w.foreignMessage }
    : { pub: w.pub, unsubscribed: w.pubUnsubscribed, message: w.otherPubMessage };
}

function ok(res: { statusCode: number; body: string }): Record<string, any> {
  if (res.statusCode !== 200) throw new Error(`authz fixture failed: ${res.body}`);
  return JSON.parse(res.body);
}

const FAR_FUTURE = () => Math.floor(Date.now() / 1000) + 10 * 365 * 86400;

export async function startAuthzWorld(): Promise<World> {
  await sodium.ready;
  const keys = sodium.crypto_box_keypair();
  const b64 = (b: Uint8Array) => sodium.to_base64(b, sodium.base64_variants.ORIGINAL);
  const relayPublicKey = b64(keys.publicKey);
  const s = await startTestServer({ longPollSeconds: 1, pushRelayKeys: new Map([[relayPublicKey, b64(keys.privateKey)]]) });
  const A = s.realm;
  let counter = 0;
  const unique = (prefix: string) => `${prefix}${++counter}`;
  const make = (local: string, name: string) => doCreateUser(s.ctx, A.realm, { email: `${local}@example.com`, fullName: name, password: null, role: Role.MEMBER });
  const victim = await make("matrix-victim", "Vic Matrix");
  const deactivated = await make("matrix-gone", "Gone Matrix");
  const dormant = await make("matrix-dormant", "Dormant Matrix");
  await s.db.updateTable("users").set({ is_active: 0 }).where("id", "in", [deactivated.id, dormant.id]).execute();
  const memberBot = await doCreateUser(s.ctx, A.realm, {
    email: "matrix-bot@example.com",
    fullName: "Matrix Bot",
    password: null,
    role: Role.MEMBER,
    isBot: true,
    botType: 1,
    botOwnerId: A.member.id,
  });
  const other = A.other;
  const live = [A.owner, A.admin, A.moderator, A.member, other, A.guest, A.bot];
  const pub = await createChannel(s, { name: "matrix-pub", subscribers: live, creator: A.owner });
  const pubSecond = await createChannel(s, { name: "matrix-pub-second", subscribers: live, creator: A.owner });
  const pubUnsubscribed = await createChannel(s, { name: "matrix-pub-unsubscribed", subscribers: [other], creator: A.owner });
  const priv = await createChannel(s, { name: "matrix-priv", invite_only: true, history_public_to_subscribers: true, subscribers: [other], creator: A.owner });
  const privMember = await createChannel(s, { name: "matrix-priv-member", invite_only: true, history_public_to_subscribers: true, subscribers: [A.member, other], creator: A.owner });
  const moderation = await createChannel(s, { name: "matrix-moderation", invite_only: true, subscribers: [A.owner, A.admin], creator: A.owner });
  await s.db.updateTable("realms").set({ moderation_request_channel_id: moderation.id }).where("id", "=", A.realm.id).execute();

  const send = async (user: User, params: Params) => ok(await s.api.post(user, "/messages", params)).id as number;
  const otherPubMessage = await send(other, { type: "stream", to: pub.name, topic: "matrix", content: "other's message" });
  const otherPrivMessage = await send(other, { type: "stream", to: priv.name, topic: "secret", content: "other's private message" });
  const privMemberMessage = await send(other, { type: "stream", to: privMember.name, topic: "ours", content: "for the member" });
  const otherUnsubscribedMessage = await send(other, { type: "stream", to: pubUnsubscribed.name, topic: "quiet", content: "other's quiet message" });
  const otherPushAccountId = 4242;
  ok(await s.api.post(other, "/mobile_push/register", { token_kind: "fcm", push_account_id: otherPushAccountId, push_public_key: relayPublicKey, bouncer_public_key: relayPublicKey, encrypted_push_registration: "AAAA" }));
  const otherPushDevices = await s.db.selectFrom("push_devices").selectAll().where("user_id", "=", other.id).execute();
  const otherDirectMessage = await send(other, { type: "direct", to: [victim.id], content: "other's direct message" });
  const otherDraft = ok(await s.api.post(other, "/drafts", { drafts: [{ type: "", to: [], topic: "", content: "other's draft" }] })).ids[0] as number;
  const otherScheduled = ok(
    await s.api.post(other, "/scheduled_messages", { type: "direct", to: JSON.stringify([victim.id]), content: "other's scheduled", scheduled_delivery_timestamp: FAR_FUTURE() }),
  ).scheduled_message_id as number;
  const otherReminder = ok(await s.api.post(other, "/reminders", { message_id: otherPubMessage, scheduled_delivery_timestamp: FAR_FUTURE() })).reminder_id as number;
  const otherNavFragment = "narrow/is/other-view";
  ok(await s.api.post(other, "/navigation_views", { fragment: otherNavFragment, is_pinned: true, name: "Other's view" }));
  const upload = async (user: User) => ok(await postFiles(s, user, "/user_uploads", [{ field: "file", filename: "note.txt", content: Buffer.from("hello"), type: "text/plain" }])).url as string;
  await upload(other);
  const otherUploadRow = await s.db.selectFrom("attachments").select(["id", "path_id"]).where("owner_id", "=", other.id).executeTakeFirstOrThrow();
  const otherSharedUrl = await upload(other);
  await send(other, { type: "stream", to: pub.name, topic: "files", content: `[file](${otherSharedUrl})` });
  const otherPrivateUrl = await upload(other);
  await send(other, { type: "stream", to: priv.name, topic: "files", content: `[file](${otherPrivateUrl})` });
  const otherEmoji = "matrix_other_emoji";
  ok(await postFiles(s, other, `/realm/emoji/${otherEmoji}`, [{ field: "file", filename: "e.png", content: await pngImage(32, 32), type: "image/png" }]));
  ok(await s.api.post(A.owner, "/realm/filters", { pattern: "matrix-(?P<id>[0-9]+)", url_template: "https://matrix.example.net/{id}" }));
  const otherGroup = ok(await s.api.post(other, "/user_groups/create", { name: "matrix-other-group", description: "", members: [other.id] })).group_id as number;
  const systemGroup = (await s.db.selectFrom("user_groups").select("id").where("realm_id", "=", A.realm.id).where("name", "=", "role:members").executeTakeFirstOrThrow()).id;
  ok(await s.api.post(other, "/invites", { invitee_emails: "matrix-invitee@example.com", stream_ids: [] }));
  const otherInvite = (await s.db.selectFrom("invites").select("id").where("referrer_id", "=", other.id).executeTakeFirstOrThrow()).id;
  ok(await s.api.post(other, "/users/me/presence", { status: "active" }));
  const foreignPub = await createChannel(s, { name: "matrix-foreign-pub", subscribers: [s.other.owner, s.other.member], creator: s.other.owner });
  const foreignUnsubscribed = await createChannel(s, { name: "matrix-foreign-quiet", subscribers: [s.other.member], creator: s.other.owner });
  const foreignMessage = await send(s.other.member, { type: "stream", to: foreignPub.name, topic: "theirs", content: "B's message" });
  // The other organization reports too, so its owner's reports reach the message access check.
  const foreignModeration = await createChannel(s, { name: "matrix-foreign-moderation", invite_only: true, subscribers: [s.other.owner], creator: s.other.owner });
  await s.db.updateTable("realms").set({ moderation_request_channel_id: foreignModeration.id }).where("id", "=", s.other.realm.id).execute();

  const caller = (role: RoleName, user: User | null, actor?: User): Caller => ({ role, user, actor: actor ?? user ?? A.member });
  const callers: Record<RoleName, Caller> = {
    owner: caller("owner", A.owner),
    admin: caller("admin", A.admin),
    moderator: caller("moderator", A.moderator),
    member: caller("member", A.member),
    guest: caller("guest", A.guest),
    bot: caller("bot", A.bot),
    deactivated: caller("deactivated", deactivated, A.member),
    // The other organization's owner, on its own host, naming this organization's objects.
    foreign: caller("foreign", s.other.owner),
    anonymous: caller("anonymous", null, A.member),
  };
  return {
    s,
    callers,
    other,
    victim,
    dormant,
    memberBot,
    pub,
    pubSecond,
    pubUnsubscribed,
    priv,
    privMember,
    privMemberMessage,
    otherPubMessage,
    otherPrivMessage,
    otherDirectMessage,
    otherUnsubscribedMessage,
    otherPushAccountId,
    otherPushDevices,
    otherDraft,
    otherScheduled,
    otherReminder,
    otherNavFragment,
    otherUpload: { id: otherUploadRow.id, path: otherUploadRow.path_id },
    otherSharedUpload: { path: otherSharedUrl.replace(/^\/user_uploads\//, "") },
    otherPrivateUpload: { path: otherPrivateUrl.replace(/^\/user_uploads\//, "") },
    otherEmoji,
    otherGroup,
    systemGroup,
    otherInvite,
    relayPublicKey,
    foreignPub,
    foreignUnsubscribed,
    foreignMessage,
    unique,
  };
}

/** Fresh objects of one user, made through the API as that user. */
export const own = {
  async channelMessage(w: World, user: User): Promise<number> {
    return expectSuccess(await w.s.api.post(user, "/messages", { type: "stream", to: home(w, user).pub.name, topic: "own", content: w.unique("own message ") })).id as number;
  },
  async draft(w: World, user: User): Promise<number> {
    return expectSuccess(await w.s.api.post(user, "/drafts", { drafts: [{ type: "", to: [], topic: "", content: "mine" }] })).ids[0] as number;
  },
  async scheduled(w: World, user: User): Promise<number> {
    const params = { type: "stream", to: String(home(w, user).pub.id), topic: "later", content: "mine", scheduled_delivery_timestamp: FAR_FUTURE() };
    return expectSuccess(await w.s.api.post(user, "/scheduled_messages", params)).scheduled_message_id as number;
  },
  async reminder(w: World, user: User): Promise<number> {
    return expectSuccess(await w.s.api.post(user, "/reminders", { message_id: home(w, user).message, scheduled_delivery_timestamp: FAR_FUTURE() })).reminder_id as number;
  },
  async navigationView(w: World, user: User): Promise<string> {
    const fragment = `narrow/is/${w.unique("own-view-")}`;
    expectSuccess(await w.s.api.post(user, "/navigation_views", { fragment, is_pinned: true, name: w.unique("View ") }));
    return fragment;
  },
  async upload(w: World, user: User): Promise<{ id: number; path: string }> {
    const url = expectSuccess(await postFiles(w.s, user, "/user_uploads", [{ field: "file", filename: "own.txt", content: Buffer.from("mine"), type: "text/plain" }])).url as string;
    const path = url.replace(/^\/user_uploads\//, "");
    const row = await w.s.db.selectFrom("attachments").select("id").where("path_id", "=", path).executeTakeFirstOrThrow();
    return { id: row.id, path };
  },
  async emoji(w: World, user: User): Promise<string> {
    const name = w.unique("own_emoji_");
    if (isGuest(user)) {
      // Guests may not upload: one uploaded while the guest was a member.
      await w.s.db.insertInto("realm_emoji").values({ realm_id: user.realm_id, name, file_name: "e.png", author_id: user.id }).execute();
      return name;
    }
    expectSuccess(await postFiles(w.s, user, `/realm/emoji/${name}`, [{ field: "file", filename: "e.png", content: await pngImage(32, 32), type: "image/png" }]));
    return name;
  },
  async group(w: World, user: User): Promise<number> {
    const name = w.unique("own-group-");
    if (isGuest(user) || user.is_bot) {
      // Guests and bots may not create groups: one an owner made for them to manage.
      const managed = { name, description: "", members: [user.id], can_manage_group: { direct_members: [user.id], direct_subgroups: [] } };
      return expectSuccess(await w.s.api.post(w.s.realm.owner, "/user_groups/create", managed)).group_id as number;
    }
    return expectSuccess(await w.s.api.post(user, "/user_groups/create", { name, description: "", members: [user.id] })).group_id as number;
  },
  async invite(w: World, user: User): Promise<number> {
    const email = `${w.unique("own-invitee-")}@example.com`;
    expectSuccess(await w.s.api.post(user, "/invites", { invitee_emails: email, stream_ids: [] }));
    return (await w.s.db.selectFrom("invites").select("id").where("email", "=", email).executeTakeFirstOrThrow()).id;
  },
  async queue(w: World, user: User): Promise<string> {
    return expectSuccess(await w.s.api.post(user, "/register", { event_types: ["message"] })).queue_id as string;
  },
};

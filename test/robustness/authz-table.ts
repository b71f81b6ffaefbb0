/**
 * THE authorization table: for every route of src/http/routes.ts, the objects it acts on
 * (the caller's own, someone else's, a private channel the caller is not in, another
 * organization's) and the outcome for every role: "ok", or the exact error.
 *
 * Roles (test/support/authz-world.ts): owner, admin, moderator, member, guest, bot (a generic
 * bot owned by the member), deactivated (a deactivated member's credentials), foreign (the
 * other organization's owner on its own host, naming this organization's objects), anonymous.
 * "Others' objects" belong to the second member ("other"). Outcomes follow upstream's rules
 * (shared/reference/upstream-*.md, the spec, and the messages the family tests assert).
 * authz-coverage.test.ts fails when a route has no row, so new endpoints must join here.
 */
import { expect } from "vitest";
import type { User } from "../../src/db/schema.js";
import { Role } from "../../src/lib/roles.js";
import { createChannel } from "../support/channels.js";
import { expectSuccess } from "../support/client.js";
import { pngImage } from "../support/multipart.js";
import { OWNER_PASSWORD } from "../support/realm.js";
import { home, own, type Caller, type World } from "../support/authz-world.js";
import type { Expectation, Outcome, Req, Row } from "../support/authz-run.js";

const err = (msg: string | RegExp, code = "BAD_REQUEST", status = 400): Outcome => ({ msg, code, status });
const DEACTIVATED = err("Account is deactivated", "UNAUTHORIZED", 401);
const NOT_LOGGED_IN = err("Not logged in: API authentication or user session required", "UNAUTHORIZED", 401);
const MUST_ADMIN = err("Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
const MUST_OWNER = err("Must be an organization owner", "UNAUTHORIZED_PRINCIPAL");
const INSUFFICIENT = err("Insufficient permission");
const NOT_GUEST = err("Not allowed for guest users");
const NO_BOTS = err("This endpoint does not accept bot requests.");
const INVALID_MESSAGE = err("Invalid message(s)");
const INVALID_CHANNEL = err("Invalid channel ID");
const NO_SUCH_USER = err("No such user");
const NO_CHANNEL_ADMIN = err("You do not have permission to administer this channel.");
const NO_EDIT = err("You don't have permission to edit this message");
const DRAFT_MISSING = err("Draft does not exist", "BAD_REQUEST", 404);
const SCHEDULED_MISSING = err("Scheduled message does not exist", "BAD_REQUEST", 404);
const REMINDER_MISSING = err("Reminder does not exist", "BAD_REQUEST", 404);
const VIEW_MISSING = err("Navigation view does not exist.", "NOT_FOUND", 404);
const INVALID_GROUP = err("Invalid user group");
const NO_INVITATION = err("No such invitation");
const ONLY_OWNER = err("The owner permission cannot be removed from the only organization owner.");
const LAST_OWNER = err("Cannot deactivate the only organization owner.", "CANNOT_DEACTIVATE_LAST_USER");
const BAD_QUEUE = err(/^Bad event queue ID: [\w:-]+$/, "BAD_EVENT_QUEUE_ID");
/** Upstream's invitation role check raises a plain error, not the decorator's code. */
const MUST_ADMIN_PLAIN = err("Must be an organization administrator");
const NO_PRINCIPAL = err(/^User not authorized to execute queries on behalf of '\d+'$/, "UNAUTHORIZED_PRINCIPAL", 403);
const UNKNOWN_CHANNEL_NARROW = err(/^Invalid narrow operator: unknown channel \d+$/, "BAD_NARROW");

/**
 * `rest` for every live role of this organization and the foreign caller, then overrides.
 * A deactivated user's credentials and a request without any get authentication's 401s
 * unless the row says otherwise.
 */
function x(rest: Outcome, over: Partial<Expectation> = {}): Expectation {
  return { owner: rest, admin: rest, moderator: rest, member: rest, guest: rest, bot: rest, foreign: rest, deactivated: DEACTIVATED, anonymous: NOT_LOGGED_IN, ...over };
}
/** Administrators and owners (the foreign owner too, in its own organization). */
const adminOnly = (refusal: Outcome = MUST_ADMIN, over: Partial<Expectation> = {}) => x(refusal, { owner: "ok", admin: "ok", foreign: "ok", ...over });
/** Humans that are not guests (upstream's member-or-admin guard). */
const membersNoBots = (over: Partial<Expectation> = {}) => x("ok", { guest: NOT_GUEST, bot: NO_BOTS, ...over });

const me = (c: Caller): User => c.actor;
const far = () => Math.floor(Date.now() / 1000) + 365 * 86400;

function row(route: string, object: string, expect: Expectation, request: Row["request"], undo?: Row["undo"]): Row {
  return { route, object, expect, request, undo };
}
/** A list endpoint's row: what its allowed answers must not show. */
const hiding = (r: Row, hidden: NonNullable<Row["hidden"]>): Row => ({ ...r, hidden });
const isAdminRole = (role: string) => role === "owner" || role === "admin" || role === "foreign";
/** Content of other's objects that only other may see. */
const OTHERS_PRIVATE = ["other's draft", "other's scheduled", "other's private message", "other's direct message", "Other's view"];
const at = (path: string, params: Req["params"] = {}): Req => ({ path, params });

async function setActive(w: World, id: number, active: boolean) {
  await w.s.db.updateTable("users").set({ is_active: active ? 1 : 0 }).where("id", "=", id).execute();
}
async function setRole(w: World, id: number, role: number) {
  await w.s.db.updateTable("users").set({ role }).where("id", "=", id).execute();
}
/** A fresh channel with the owner, the member and the bot subscribed (only the owner when private). */
function adminChannel(w: World, inviteOnly: boolean) {
  const { owner, member, bot } = w.s.realm;
  return createChannel(w.s, { name: w.unique("role-chan-"), invite_only: inviteOnly, subscribers: inviteOnly ? [owner] : [owner, member, bot], creator: owner });
}

export function authzRows(): Row[] {
  return [
    // --- credentials and server ---
    row("POST /fetch_api_key", "this organization's owner's password", x("ok", { deactivated: "ok", anonymous: "ok", foreign: err("Your username or password is incorrect", "AUTHENTICATION_FAILED", 401) }), async (_c, w) =>
      at("/fetch_api_key", { username: w.s.realm.owner.delivery_email, password: OWNER_PASSWORD }),
    ),
    row("GET /server_settings", "the organization's public settings", x("ok", { deactivated: "ok", anonymous: "ok" }), async () => at("/server_settings")),
    row("POST /register", "own event queue", x("ok"), async () => at("/register", { event_types: ["message"] })),
    // The whole initial state: others' drafts, scheduled messages, views and private content stay out;
    // administrators see private channels' metadata, nobody else their names.
    hiding(
      row("POST /register", "own full initial state", x("ok"), async () => at("/register")),
      (_w, role) => [...OTHERS_PRIVATE, ...(isAdminRole(role) ? [] : ['"matrix-priv"'])],
    ),
    row("GET /events", "own event queue", x("ok"), async (c, w) => at("/events", { queue_id: c.user ? await own.queue(w, me(c)) : "1:1", last_event_id: -1, dont_block: true })),
    row("GET /events", "other's event queue", x(BAD_QUEUE), async (_c, w) => at("/events", { queue_id: await own.queue(w, w.other), last_event_id: -1, dont_block: true })),
    row("DELETE /events", "own event queue", x("ok"), async (c, w) => at("/events", { queue_id: c.user ? await own.queue(w, me(c)) : "1:1" })),
    row("DELETE /events", "other's event queue", x(BAD_QUEUE), async (_c, w) => at("/events", { queue_id: await own.queue(w, w.other) })),

    // --- channels and subscriptions ---
    hiding(
      row("GET /streams", "the channel list", x("ok"), async () => at("/streams")),
      () => ['"matrix-priv"'],
    ),
    row("GET /streams/{stream_id:int}", "public channel", x("ok", { foreign: INVALID_CHANNEL }), async (_c, w) => at(`/streams/${w.pub.id}`)),
    // Guests see only the public channels they are subscribed to.
    row("GET /streams/{stream_id:int}", "public channel the caller is not in", x("ok", { guest: INVALID_CHANNEL, foreign: INVALID_CHANNEL }), async (_c, w) => at(`/streams/${w.pubUnsubscribed.id}`)),
    row("GET /streams/{stream_id:int}", "private channel the caller is not in", x(INVALID_CHANNEL, { owner: "ok", admin: "ok" }), async (_c, w) => at(`/streams/${w.priv.id}`)),
    row("GET /get_stream_id", "public channel", x("ok", { foreign: err("Invalid channel name 'matrix-pub'") }), async (_c, w) => at("/get_stream_id", { stream: w.pub.name })),
    row("GET /get_stream_id", "private channel the caller is not in", x(err("Invalid channel name 'matrix-priv'")), async (_c, w) => at("/get_stream_id", { stream: w.priv.name })),
    row("PATCH /streams/{stream_id:int}", "public channel the caller (the guest too) is subscribed to", adminOnly(NO_CHANNEL_ADMIN, { foreign: INVALID_CHANNEL }), async (_c, w) =>
      at(`/streams/${w.pub.id}`, { description: w.unique("about ") }),
    ),
    // A channel with the member, the owner and the bot subscribed (not the guest: for it the channel does not exist).
    row("PATCH /streams/{stream_id:int}", "public channel the caller may not be in", adminOnly(NO_CHANNEL_ADMIN, { guest: INVALID_CHANNEL, foreign: INVALID_CHANNEL }), async (_c, w) =>
      at(`/streams/${(await adminChannel(w, false)).id}`, { description: w.unique("desc ") }),
    ),
    // Administrators administer every channel, private ones included (upstream's realm-admin rule).
    row("PATCH /streams/{stream_id:int}", "private channel the caller is not in", x(INVALID_CHANNEL, { owner: "ok", admin: "ok" }), async (_c, w) =>
      at(`/streams/${(await adminChannel(w, true)).id}`, { description: w.unique("desc ") }),
    ),
    row("DELETE /streams/{stream_id:int}", "public channel the caller may not be in", adminOnly(NO_CHANNEL_ADMIN, { guest: INVALID_CHANNEL, foreign: INVALID_CHANNEL }), async (_c, w) =>
      at(`/streams/${(await adminChannel(w, false)).id}`),
    ),
    row("DELETE /streams/{stream_id:int}", "private channel the caller is not in", x(INVALID_CHANNEL, { owner: "ok", admin: "ok" }), async (_c, w) =>
      at(`/streams/${(await createChannel(w.s, { name: w.unique("matrix-doomed-"), invite_only: true, subscribers: [w.other], creator: w.s.realm.owner })).id}`),
    ),
    row("GET /streams/{stream_id:int}/members", "public channel", x("ok", { foreign: INVALID_CHANNEL }), async (_c, w) => at(`/streams/${w.pub.id}/members`)),
    row("GET /streams/{stream_id:int}/members", "private channel the caller is not in", x(INVALID_CHANNEL, { owner: "ok", admin: "ok" }), async (_c, w) => at(`/streams/${w.priv.id}/members`)),
    hiding(
      row("GET /users/me/subscriptions", "own subscriptions", x("ok"), async () => at("/users/me/subscriptions")),
      () => ['"matrix-priv"'],
    ),
    // (The foreign owner joins one of its own organization: a name of ours would create a channel there.)
    row("POST /users/me/subscriptions", "join a public channel", x("ok", { guest: NOT_GUEST }), async (c, w) => at("/users/me/subscriptions", { subscriptions: [{ name: home(w, me(c)).unsubscribed.name }] }), async (c, w) => {
      expectSuccess(await w.s.api.delete(c.user, "/users/me/subscriptions", { subscriptions: [home(w, c.user!).unsubscribed.name] }));
    }),
    // Content access, as upstream: administrators see a private channel's metadata but may not join it.
    // (The foreign owner's request creates a channel of that name in its own organization.)
    row("POST /users/me/subscriptions", "join a private channel the caller is not in", x(err("Unable to access channel (matrix-priv)."), { guest: NOT_GUEST, foreign: "ok" }), async (_c, w) =>
      at("/users/me/subscriptions", { subscriptions: [{ name: w.priv.name }] }),
      async (c, w) => {
        expectSuccess(await w.s.api.delete(c.user, "/users/me/subscriptions", { subscriptions: [w.priv.name] }));
      },
    ),
    row("POST /users/me/subscriptions", "subscribe another user (victim) to a public channel", x("ok", { guest: NOT_GUEST, foreign: NO_PRINCIPAL }), async (_c, w) =>
      at("/users/me/subscriptions", { subscriptions: [{ name: w.pubUnsubscribed.name }], principals: [w.victim.id] }),
      async (_c, w) => {
        await w.s.db.deleteFrom("subscriptions").where("user_id", "=", w.victim.id).where("recipient_id", "=", w.pubUnsubscribed.recipient_id!).execute();
      },
    ),
    row("DELETE /users/me/subscriptions", "leave a public channel", x("ok"), async (c, w) => at("/users/me/subscriptions", { subscriptions: [home(w, me(c)).pub.name] }), async (c, w) => {
      // Straight in the database: a guest may not subscribe itself again.
      await w.s.db.updateTable("subscriptions").set({ active: 1 }).where("user_id", "=", c.user!.id).where("recipient_id", "=", home(w, c.user!).pub.recipient_id!).execute();
    }),
    row("DELETE /users/me/subscriptions", "unsubscribe another user (other)", adminOnly(INSUFFICIENT, { foreign: NO_PRINCIPAL }), async (_c, w) =>
      at("/users/me/subscriptions", { subscriptions: [w.pub.name], principals: [w.other.id] }),
      async (_c, w) => {
        await w.s.db.updateTable("subscriptions").set({ active: 1 }).where("user_id", "=", w.other.id).where("recipient_id", "=", w.pub.recipient_id!).execute();
      },
    ),
    row("POST /users/me/subscriptions/properties", "own subscription", x("ok"), async (c, w) =>
      at("/users/me/subscriptions/properties", { subscription_data: [{ stream_id: home(w, me(c)).pub.id, property: "pin_to_top", value: true }] }),
    ),
    row("POST /users/me/subscriptions/properties", "private channel the caller is not in", x(INVALID_CHANNEL), async (_c, w) =>
      at("/users/me/subscriptions/properties", { subscription_data: [{ stream_id: w.priv.id, property: "pin_to_top", value: true }] }),
    ),
    row("POST /user_topics", "topic in a public channel", x("ok", { foreign: INVALID_CHANNEL }), async (_c, w) => at("/user_topics", { stream_id: w.pub.id, topic: "matrix", visibility_policy: 1 })),
    row("POST /user_topics", "topic in a private channel the caller is not in", x(INVALID_CHANNEL), async (_c, w) => at("/user_topics", { stream_id: w.priv.id, topic: "secret", visibility_policy: 1 })),
    row("GET /users/me/{stream_id:int}/topics", "public channel", x("ok", { foreign: INVALID_CHANNEL }), async (_c, w) => at(`/users/me/${w.pub.id}/topics`)),
    row("GET /users/me/{stream_id:int}/topics", "public channel the caller is not in", x("ok", { guest: INVALID_CHANNEL, foreign: INVALID_CHANNEL }), async (_c, w) => at(`/users/me/${w.pubUnsubscribed.id}/topics`)),
    row("GET /users/me/{stream_id:int}/topics", "private channel the caller is not in", x(INVALID_CHANNEL), async (_c, w) => at(`/users/me/${w.priv.id}/topics`)),
    row("POST /streams/{stream_id:int}/delete_topic", "topic in a public channel", adminOnly(MUST_ADMIN, { foreign: INVALID_CHANNEL }), async (_c, w) =>
      at(`/streams/${(await adminChannel(w, false)).id}/delete_topic`, { topic_name: "t" }),
    ),
    row("POST /streams/{stream_id:int}/delete_topic", "topic in a private channel the caller is not in", adminOnly(MUST_ADMIN, { owner: INVALID_CHANNEL, admin: INVALID_CHANNEL, foreign: INVALID_CHANNEL }), async (_c, w) =>
      at(`/streams/${w.priv.id}/delete_topic`, { topic_name: "secret" }),
    ),
    row("POST /mark_all_as_read", "own messages", x("ok"), async () => at("/mark_all_as_read")),
    row("POST /mark_stream_as_read", "public channel", x("ok", { foreign: INVALID_CHANNEL }), async (_c, w) => at("/mark_stream_as_read", { stream_id: w.pub.id })),
    row("POST /mark_stream_as_read", "private channel the caller is not in", x(INVALID_CHANNEL), async (_c, w) => at("/mark_stream_as_read", { stream_id: w.priv.id })),
    row("POST /mark_topic_as_read", "topic in a public channel", x("ok", { foreign: INVALID_CHANNEL }), async (_c, w) => at("/mark_topic_as_read", { stream_id: w.pub.id, topic_name: "matrix" })),
    row("POST /mark_topic_as_read", "topic in a private channel the caller is not in", x(INVALID_CHANNEL), async (_c, w) => at("/mark_topic_as_read", { stream_id: w.priv.id, topic_name: "secret" })),

    // --- messages ---
    row("POST /messages", "to a public channel", x("ok"), async (c, w) => at("/messages", { type: "stream", to: home(w, me(c)).pub.name, topic: "sent", content: "hello" })),
    row("POST /messages", "to a private channel the caller is not in", x(err("Not authorized to send to channel 'matrix-priv'"), { foreign: err("Stream 'matrix-priv' does not exist", "STREAM_DOES_NOT_EXIST") }), async (_c, w) =>
      at("/messages", { type: "stream", to: w.priv.name, topic: "t", content: "intrusion" }),
    ),
    row("POST /messages", "to a public channel the caller is not in", x("ok", { guest: err("Not authorized to send to channel 'matrix-pub-unsubscribed'"), foreign: err("Stream 'matrix-pub-unsubscribed' does not exist", "STREAM_DOES_NOT_EXIST") }), async (_c, w) =>
      at("/messages", { type: "stream", to: w.pubUnsubscribed.name, topic: "t", content: "drive-by" }),
    ),
    // A bot may post where its owner may (upstream access_stream_for_send_message), but reads only its own channels.
    row("POST /messages", "to a private channel only the bot's owner (member) is in", x(err("Not authorized to send to channel 'matrix-priv-member'"), { member: "ok", bot: "ok", foreign: err("Stream 'matrix-priv-member' does not exist", "STREAM_DOES_NOT_EXIST") }), async (_c, w) =>
      at("/messages", { type: "stream", to: w.privMember.name, topic: "t", content: "via the owner" }),
    ),
    row("GET /messages/{message_id:int}", "a message in a private channel only the bot's owner (member) is in", x(INVALID_MESSAGE, { member: "ok" }), async (_c, w) => at(`/messages/${w.privMemberMessage}`)),
    row("POST /messages", "direct message to other", x("ok", { foreign: err(/^Invalid user ID \d+$/) }), async (_c, w) => at("/messages", { type: "direct", to: [w.other.id], content: "hi" })),
    hiding(
      row("GET /messages", "recent messages", x("ok"), async () => at("/messages", { anchor: "newest", num_before: 100, num_after: 0 })),
      () => OTHERS_PRIVATE,
    ),
    // Upstream resolves a narrow's channel without an access check (the result is empty).
    hiding(
      row("GET /messages", "narrow to a private channel the caller is not in", x("ok", { foreign: UNKNOWN_CHANNEL_NARROW }), async (_c, w) =>
        at("/messages", { anchor: "newest", num_before: 5, num_after: 0, narrow: [{ operator: "channel", operand: w.priv.id }] }),
      ),
      () => OTHERS_PRIVATE,
    ),
    row("GET /messages/{message_id:int}", "own message", x("ok"), async (c, w) => at(`/messages/${await own.channelMessage(w, me(c))}`)),
    row("GET /messages/{message_id:int}", "other's message in a public channel", x("ok", { foreign: INVALID_MESSAGE }), async (_c, w) => at(`/messages/${w.otherPubMessage}`)),
    row("GET /messages/{message_id:int}", "other's message in a public channel the caller is not in", x("ok", { guest: INVALID_MESSAGE, foreign: INVALID_MESSAGE }), async (_c, w) => at(`/messages/${w.otherUnsubscribedMessage}`)),
    row("GET /messages/{message_id:int}", "other's message in a private channel the caller is not in", x(INVALID_MESSAGE), async (_c, w) => at(`/messages/${w.otherPrivMessage}`)),
    row("GET /messages/{message_id:int}", "other's direct message to someone else", x(INVALID_MESSAGE), async (_c, w) => at(`/messages/${w.otherDirectMessage}`)),
    row("PATCH /messages/{message_id:int}", "own message's content", x("ok"), async (c, w) => at(`/messages/${await own.channelMessage(w, me(c))}`, { content: "edited" })),
    row("PATCH /messages/{message_id:int}", "other's message's content", x(NO_EDIT, { foreign: INVALID_MESSAGE }), async (_c, w) => at(`/messages/${w.otherPubMessage}`, { content: "hijacked" })),
    row("PATCH /messages/{message_id:int}", "other's message's topic", x("ok", { foreign: INVALID_MESSAGE }), async (_c, w) => at(`/messages/${await own.channelMessage(w, w.other)}`, { topic: "renamed" })),
    // Moving between channels needs can_move_messages_between_channels_group (members by default).
    row("PATCH /messages/{message_id:int}", "move other's message to another public channel", x("ok", { guest: err("You don't have permission to move this message"), foreign: INVALID_MESSAGE }), async (_c, w) =>
      at(`/messages/${await own.channelMessage(w, w.other)}`, { stream_id: w.pubSecond.id }),
    ),
    row("PATCH /messages/{message_id:int}", "move own message into a private channel the caller is not in", x(INVALID_CHANNEL), async (c, w) =>
      at(`/messages/${await own.channelMessage(w, me(c))}`, { stream_id: w.priv.id }),
    ),
    row("PATCH /messages/{message_id:int}", "other's message in a private channel", x(INVALID_MESSAGE), async (_c, w) => at(`/messages/${w.otherPrivMessage}`, { topic: "moved" })),
    row("DELETE /messages/{message_id:int}", "own message", x("ok"), async (c, w) => at(`/messages/${await own.channelMessage(w, me(c))}`)),
    row("DELETE /messages/{message_id:int}", "other's message in a public channel", adminOnly(err("You don't have permission to delete this message"), { foreign: INVALID_MESSAGE }), async (_c, w) =>
      at(`/messages/${await own.channelMessage(w, w.other)}`),
    ),
    row("DELETE /messages/{message_id:int}", "other's direct message to someone else", x(INVALID_MESSAGE), async (_c, w) => at(`/messages/${w.otherDirectMessage}`)),
    // Administrators delete any message they can read, not messages of private channels they are not in.
    row("DELETE /messages/{message_id:int}", "other's message in a private channel the caller is not in", x(INVALID_MESSAGE), async (_c, w) => at(`/messages/${w.otherPrivMessage}`)),
    row("GET /messages/{message_id:int}/history", "other's message in a public channel", x("ok", { foreign: INVALID_MESSAGE }), async (_c, w) => at(`/messages/${w.otherPubMessage}/history`)),
    row("GET /messages/{message_id:int}/history", "other's message in a private channel the caller is not in", x(INVALID_MESSAGE), async (_c, w) => at(`/messages/${w.otherPrivMessage}/history`)),
    row("POST /messages/render", "a preview naming a private channel and a user", x("ok"), async (_c, w) =>
      at("/messages/render", { content: `**hi** @**${w.other.full_name}** #**matrix-priv**` }),
    ),
    row("POST /messages/flags", "star other's message in a public channel", x("ok", { foreign: INVALID_MESSAGE }), async (_c, w) => at("/messages/flags", { messages: [w.otherPubMessage], op: "add", flag: "starred" })),
    row("POST /messages/flags", "star other's direct message to someone else", x(INVALID_MESSAGE), async (_c, w) => at("/messages/flags", { messages: [w.otherDirectMessage], op: "add", flag: "starred" })),
    row("POST /messages/flags/narrow", "read a public channel", x("ok", { foreign: UNKNOWN_CHANNEL_NARROW }), async (_c, w) =>
      at("/messages/flags/narrow", { anchor: "oldest", num_before: 0, num_after: 10, op: "add", flag: "read", narrow: JSON.stringify([{ operator: "channel", operand: w.pub.id }]) }),
    ),
    row("POST /messages/{message_id:int}/reactions", "other's message in a public channel", x("ok", { foreign: INVALID_MESSAGE }), async (_c, w) =>
      at(`/messages/${w.otherPubMessage}/reactions`, { emoji_name: "tada" }),
      async (c, w) => {
        await w.s.api.delete(c.user, `/messages/${w.otherPubMessage}/reactions`, { emoji_name: "tada" });
      },
    ),
    row("POST /messages/{message_id:int}/reactions", "other's message in a private channel the caller is not in", x(INVALID_MESSAGE), async (_c, w) =>
      at(`/messages/${w.otherPrivMessage}/reactions`, { emoji_name: "tada" }),
    ),
    row("DELETE /messages/{message_id:int}/reactions", "own reaction", x("ok"), async (c, w) => {
      const id = await own.channelMessage(w, me(c));
      if (c.user) expectSuccess(await w.s.api.post(me(c), `/messages/${id}/reactions`, { emoji_name: "smile" }));
      return at(`/messages/${id}/reactions`, { emoji_name: "smile" });
    }),
    row("DELETE /messages/{message_id:int}/reactions", "other's reaction", x(err("Reaction doesn't exist.", "REACTION_DOES_NOT_EXIST"), { foreign: INVALID_MESSAGE }), async (_c, w) => {
      const id = await own.channelMessage(w, w.other);
      expectSuccess(await w.s.api.post(w.other, `/messages/${id}/reactions`, { emoji_name: "smile" }));
      return at(`/messages/${id}/reactions`, { emoji_name: "smile" });
    }),
    row("POST /messages/{message_id:int}/report", "other's message in a public channel", x("ok", { foreign: INVALID_MESSAGE }), async (_c, w) =>
      at(`/messages/${w.otherPubMessage}/report`, { report_type: "spam" }),
    ),
    // A report quotes the message into the moderation channel: only messages the reporter may read.
    row("POST /messages/{message_id:int}/report", "other's message in a private channel the caller is not in", x(INVALID_MESSAGE), async (_c, w) =>
      at(`/messages/${w.otherPrivMessage}/report`, { report_type: "spam" }),
    ),
    row("POST /messages/{message_id:int}/report", "other's direct message to someone else", x(INVALID_MESSAGE), async (_c, w) => at(`/messages/${w.otherDirectMessage}/report`, { report_type: "spam" })),
    row("POST /typing", "direct message to other", x("ok", { foreign: err(/^Invalid user ID \d+$/) }), async (_c, w) => at("/typing", { type: "direct", op: "start", to: [w.other.id] })),
    row("POST /typing", "private channel the caller is not in", x(INVALID_CHANNEL), async (_c, w) => at("/typing", { type: "stream", op: "start", stream_id: w.priv.id, topic: "secret" })),
    row("POST /messages/{message_id:int}/typing", "own message", x("ok"), async (c, w) => at(`/messages/${await own.channelMessage(w, me(c))}/typing`, { op: "start" })),
    row("POST /messages/{message_id:int}/typing", "other's message in a public channel", x(NO_EDIT, { foreign: INVALID_MESSAGE }), async (_c, w) => at(`/messages/${w.otherPubMessage}/typing`, { op: "start" })),

    // --- drafts, scheduled messages, reminders ---
    hiding(
      row("GET /drafts", "own drafts", x("ok"), async () => at("/drafts")),
      () => OTHERS_PRIVATE,
    ),
    row("POST /drafts", "new draft", x("ok"), async () => at("/drafts", { drafts: [{ type: "", to: [], topic: "", content: "new" }] })),
    row("PATCH /drafts/{draft_id:int}", "own draft", x("ok"), async (c, w) => at(`/drafts/${await own.draft(w, me(c))}`, { draft: { type: "", to: [], topic: "", content: "edited" } })),
    row("POST /drafts", "draft to a private channel the caller is not in", x(INVALID_CHANNEL), async (_c, w) => at("/drafts", { drafts: [{ type: "stream", to: [w.priv.id], topic: "t", content: "plan" }] })),
    row("PATCH /drafts/{draft_id:int}", "other's draft", x(DRAFT_MISSING), async (_c, w) => at(`/drafts/${w.otherDraft}`, { draft: { type: "", to: [], topic: "", content: "hijacked" } })),
    row("DELETE /drafts/{draft_id:int}", "own draft", x("ok"), async (c, w) => at(`/drafts/${await own.draft(w, me(c))}`)),
    row("DELETE /drafts/{draft_id:int}", "other's draft", x(DRAFT_MISSING), async (_c, w) => at(`/drafts/${w.otherDraft}`)),
    hiding(
      row("GET /scheduled_messages", "own scheduled messages", x("ok"), async () => at("/scheduled_messages")),
      () => OTHERS_PRIVATE,
    ),
    row("POST /scheduled_messages", "to a public channel", x("ok"), async (c, w) =>
      at("/scheduled_messages", { type: "stream", to: String(home(w, me(c)).pub.id), topic: "later", content: "later", scheduled_delivery_timestamp: far() }),
    ),
    row("POST /scheduled_messages", "to a private channel the caller is not in", x(err("Not authorized to send to channel 'matrix-priv'"), { foreign: err(/^Stream with ID '\d+' does not exist$/, "STREAM_DOES_NOT_EXIST") }), async (_c, w) =>
      at("/scheduled_messages", { type: "stream", to: String(w.priv.id), topic: "later", content: "later", scheduled_delivery_timestamp: far() }),
    ),
    row("PATCH /scheduled_messages/{scheduled_message_id:int}", "own scheduled message", x("ok"), async (c, w) => at(`/scheduled_messages/${await own.scheduled(w, me(c))}`, { content: "edited" })),
    row("PATCH /scheduled_messages/{scheduled_message_id:int}", "readdress own scheduled message to a private channel the caller is not in", x(err("Not authorized to send to channel 'matrix-priv'"), { foreign: err(/^Stream with ID '\d+' does not exist$/, "STREAM_DOES_NOT_EXIST") }), async (c, w) =>
      at(`/scheduled_messages/${await own.scheduled(w, me(c))}`, { type: "stream", to: String(w.priv.id), topic: "later" }),
    ),
    row("PATCH /scheduled_messages/{scheduled_message_id:int}", "other's scheduled message", x(SCHEDULED_MISSING), async (_c, w) => at(`/scheduled_messages/${w.otherScheduled}`, { content: "hijacked" })),
    row("DELETE /scheduled_messages/{scheduled_message_id:int}", "own scheduled message", x("ok"), async (c, w) => at(`/scheduled_messages/${await own.scheduled(w, me(c))}`)),
    row("DELETE /scheduled_messages/{scheduled_message_id:int}", "other's scheduled message", x(SCHEDULED_MISSING), async (_c, w) => at(`/scheduled_messages/${w.otherScheduled}`)),
    hiding(
      row("GET /reminders", "own reminders", x("ok"), async () => at("/reminders")),
      (w) => [`"reminder_id":${w.otherReminder},`],
    ),
    row("POST /reminders", "other's message in a public channel", x("ok", { foreign: INVALID_MESSAGE }), async (_c, w) => at("/reminders", { message_id: w.otherPubMessage, scheduled_delivery_timestamp: far() })),
    row("POST /reminders", "other's direct message to someone else", x(INVALID_MESSAGE), async (_c, w) => at("/reminders", { message_id: w.otherDirectMessage, scheduled_delivery_timestamp: far() })),
    // A reminder quotes the message back to the caller: only messages the caller may read.
    row("POST /reminders", "other's message in a private channel the caller is not in", x(INVALID_MESSAGE), async (_c, w) =>
      at("/reminders", { message_id: w.otherPrivMessage, scheduled_delivery_timestamp: far() }),
    ),
    row("DELETE /reminders/{reminder_id:int}", "own reminder", x("ok"), async (c, w) => at(`/reminders/${await own.reminder(w, me(c))}`)),
    row("DELETE /reminders/{reminder_id:int}", "other's reminder", x(REMINDER_MISSING), async (_c, w) => at(`/reminders/${w.otherReminder}`)),

    // --- navigation views, push devices, uploads ---
    hiding(
      row("GET /navigation_views", "own views", x("ok"), async () => at("/navigation_views")),
      (w) => [w.otherNavFragment],
    ),
    row("POST /navigation_views", "new view", x("ok"), async (_c, w) => at("/navigation_views", { fragment: `narrow/is/${w.unique("new-")}`, is_pinned: true, name: w.unique("New ") })),
    row("PATCH /navigation_views/{fragment*}", "own view", x("ok"), async (c, w) => at(`/navigation_views/${await own.navigationView(w, me(c))}`, { is_pinned: false })),
    row("PATCH /navigation_views/{fragment*}", "other's view", x(VIEW_MISSING), async (_c, w) => at(`/navigation_views/${w.otherNavFragment}`, { is_pinned: false })),
    row("DELETE /navigation_views/{fragment*}", "own view", x("ok"), async (c, w) => at(`/navigation_views/${await own.navigationView(w, me(c))}`)),
    row("DELETE /navigation_views/{fragment*}", "other's view", x(VIEW_MISSING), async (_c, w) => at(`/navigation_views/${w.otherNavFragment}`)),
    row("POST /mobile_push/register", "own device", x("ok", { bot: NO_BOTS }), async (_c, w) =>
      at("/mobile_push/register", {
        token_kind: "fcm",
        push_account_id: Number(w.unique("7")),
        push_public_key: w.relayPublicKey,
        bouncer_public_key: w.relayPublicKey,
        encrypted_push_registration: "AAAA",
      }),
    ),
    // Devices are per user: the same account id as other's device makes the caller's own.
    row("POST /mobile_push/register", "the account id of other's device", x("ok", { bot: NO_BOTS }), async (_c, w) =>
      at("/mobile_push/register", {
        token_kind: "fcm",
        push_account_id: w.otherPushAccountId,
        push_public_key: w.relayPublicKey,
        bouncer_public_key: w.relayPublicKey,
        encrypted_push_registration: "AAAA",
      }),
      async (_c, w) => {
        const device = await w.s.db.selectFrom("push_devices").selectAll().where("user_id", "=", w.other.id).execute();
        expect(device, "other's device changed").toEqual(w.otherPushDevices);
      },
    ),
    row("POST /user_uploads", "new upload", x("ok"), async () => ({ path: "/user_uploads", files: [{ field: "file", filename: "n.txt", content: Buffer.from("new"), type: "text/plain" }] })),
    row("GET /user_uploads/{realm_id_str:int}/{filename*}", "own upload", x("ok"), async (c, w) => at(`/user_uploads/${(await own.upload(w, me(c))).path}`)),
    row("GET /user_uploads/{realm_id_str:int}/{filename*}", "other's upload not shared anywhere", x(err("You are not authorized to view this file.", "BAD_REQUEST", 403), { foreign: err("File not found", "BAD_REQUEST", 404) }), async (_c, w) =>
      at(`/user_uploads/${w.otherUpload.path}`),
    ),
    row("GET /user_uploads/{realm_id_str:int}/{filename*}", "other's upload shared in a public channel", x("ok", { foreign: err("File not found", "BAD_REQUEST", 404) }), async (_c, w) =>
      at(`/user_uploads/${w.otherSharedUpload.path}`),
    ),
    row("GET /user_uploads/{realm_id_str:int}/{filename*}", "other's upload shared in a private channel the caller is not in", x(err("You are not authorized to view this file.", "BAD_REQUEST", 403), { foreign: err("File not found", "BAD_REQUEST", 404) }), async (_c, w) =>
      at(`/user_uploads/${w.otherPrivateUpload.path}`),
    ),
    hiding(
      row("GET /attachments", "own uploads", x("ok"), async () => at("/attachments")),
      () => ["note.txt"],
    ),
    row("DELETE /attachments/{attachment_id:int}", "own upload", x("ok"), async (c, w) => at(`/attachments/${(await own.upload(w, me(c))).id}`)),
    row("DELETE /attachments/{attachment_id:int}", "other's upload", x(err("Invalid attachment")), async (_c, w) => at(`/attachments/${w.otherUpload.id}`)),

    // --- custom emoji ---
    row("GET /realm/emoji", "the organization's emoji", x("ok"), async () => at("/realm/emoji")),
    row("POST /realm/emoji/{emoji_name}", "new emoji", x("ok", { guest: NOT_GUEST }), async (_c, w) => ({
      path: `/realm/emoji/${w.unique("new_emoji_")}`,
      files: [{ field: "file", filename: "e.png", content: await pngImage(32, 32), type: "image/png" }],
    })),
    row("DELETE /realm/emoji/{emoji_name}", "own emoji", x("ok"), async (c, w) => at(`/realm/emoji/${await own.emoji(w, me(c))}`)),
    row("DELETE /realm/emoji/{emoji_name}", "other's emoji", adminOnly(err("Must be an organization administrator or emoji author"), { foreign: err("Emoji 'matrix_other_emoji' does not exist", "BAD_REQUEST", 404) }), async (_c, w) => at(`/realm/emoji/${w.otherEmoji}`), async (_c, w) => {
      await w.s.db.updateTable("realm_emoji").set({ deactivated: 0 }).where("name", "=", w.otherEmoji).execute();
    }),

    // --- users ---
    row("GET /users/me", "own record", x("ok"), async () => at("/users/me")),
    row("GET /users", "every user", x("ok"), async () => at("/users")),
    row("GET /users/{user_id:int}", "another user", x("ok", { foreign: NO_SUCH_USER }), async (_c, w) => at(`/users/${w.other.id}`)),
    row("GET /users/{email}", "another user", x("ok", { foreign: NO_SUCH_USER }), async (_c, w) => at(`/users/${w.other.delivery_email}`)),
    // Administering users (upstream access_user_by_id(for_admin=True); only owners grant or remove the owner role).
    row("PATCH /users/{user_id:int}", "a member's full name", adminOnly(INSUFFICIENT, { foreign: NO_SUCH_USER }), async (_c, w) => at(`/users/${w.victim.id}`, { full_name: w.unique("New Name ") })),
    row("PATCH /users/{user_id:int}", "a member's role to moderator", adminOnly(INSUFFICIENT, { foreign: NO_SUCH_USER }), async (_c, w) => at(`/users/${w.victim.id}`, { role: Role.MODERATOR }), async (_c, w) =>
      setRole(w, w.victim.id, Role.MEMBER),
    ),
    row("PATCH /users/{user_id:int}", "a member's role to owner", adminOnly(INSUFFICIENT, { admin: MUST_OWNER, foreign: NO_SUCH_USER }), async (_c, w) => at(`/users/${w.victim.id}`, { role: Role.OWNER }), async (_c, w) =>
      setRole(w, w.victim.id, Role.MEMBER),
    ),
    // The owner's role does not change (already owner): a success with nothing to do.
    row("PATCH /users/{user_id:int}", "own role to owner (escalation)", adminOnly(INSUFFICIENT, { admin: MUST_OWNER }), async (c) => at(`/users/${me(c).id}`, { role: Role.OWNER })),
    // The only owner cannot stop being one.
    row("PATCH /users/{user_id:int}", "own role to administrator (escalation)", adminOnly(INSUFFICIENT, { owner: ONLY_OWNER, foreign: ONLY_OWNER }), async (c) => at(`/users/${me(c).id}`, { role: Role.ADMINISTRATOR })),
    // Bot owners administer their bots.
    row("PATCH /users/{user_id:int}", "the member's bot's full name", adminOnly(INSUFFICIENT, { member: "ok", foreign: NO_SUCH_USER }), async (_c, w) => at(`/users/${w.s.realm.bot.id}`, { full_name: w.unique("Bot Name ") })),
    row("DELETE /users/{user_id:int}", "a member", adminOnly(INSUFFICIENT, { foreign: NO_SUCH_USER }), async (_c, w) => at(`/users/${w.victim.id}`), async (_c, w) => setActive(w, w.victim.id, true)),
    row("DELETE /users/{user_id:int}", "the only owner", adminOnly(INSUFFICIENT, { admin: MUST_OWNER, owner: err("Cannot deactivate the only organization owner"), foreign: NO_SUCH_USER }), async (_c, w) =>
      at(`/users/${w.s.realm.owner.id}`),
    ),
    row("PATCH /users/{user_id:int}", "own full name", adminOnly(INSUFFICIENT), async (c) => at(`/users/${me(c).id}`, { full_name: "Renamed Self" }), async (c, w) => {
      await w.s.db.updateTable("users").set({ full_name: c.user!.full_name }).where("id", "=", c.user!.id).execute();
    }),
    // Upstream deactivates bots through its bot endpoints only: here every bot is "No such user".
    row("DELETE /users/{user_id:int}", "the member's second bot", x(NO_SUCH_USER), async (_c, w) => at(`/users/${w.memberBot.id}`)),
    // A bot's owner administers it (upstream access_user_by_id(for_admin=True) with bots allowed).
    row("POST /users/{user_id:int}/reactivate", "the member's deactivated bot", adminOnly(INSUFFICIENT, { member: "ok", foreign: NO_SUCH_USER }), async (_c, w) => {
      await setActive(w, w.memberBot.id, false);
      return at(`/users/${w.memberBot.id}/reactivate`);
    }, async (_c, w) => setActive(w, w.memberBot.id, false)),
    row("POST /users/{user_id:int}/reactivate", "a deactivated member", adminOnly(INSUFFICIENT, { foreign: NO_SUCH_USER }), async (_c, w) => at(`/users/${w.dormant.id}/reactivate`), async (_c, w) =>
      setActive(w, w.dormant.id, false),
    ),
    row("DELETE /users/me", "own account", x("ok", { owner: LAST_OWNER, foreign: LAST_OWNER }), async () => at("/users/me"), async (c, w) => setActive(w, c.user!.id, true)),
    row("POST /users", "new user", adminOnly(MUST_ADMIN, { admin: err("User not authorized to create users") }), async (_c, w) =>
      at("/users", { email: `${w.unique("made-")}@example.com`, password: "a long enough passphrase 42", full_name: "Made Person" }),
    ),
    row("GET /realm/profile_fields", "the organization's fields", x("ok"), async () => at("/realm/profile_fields")),
    row("POST /realm/profile_fields", "new field", adminOnly(), async (_c, w) => at("/realm/profile_fields", { name: w.unique("Field "), field_type: 1 })),
    row("PATCH /users/me/profile_data", "own profile", x("ok", { bot: NO_BOTS }), async () => at("/users/me/profile_data", { data: [] })),
    row("PATCH /settings", "own full name", x("ok", { bot: NO_BOTS }), async (c) => at("/settings", { full_name: c.actor.full_name })),
    row("PATCH /settings", "own password, with the owner's current one", x(err("Wrong password!"), { owner: "ok", foreign: "ok", bot: NO_BOTS }), async () =>
      at("/settings", { old_password: OWNER_PASSWORD, new_password: OWNER_PASSWORD }),
    ),
    row("POST /users/me/status", "own status", x("ok", { bot: NO_BOTS }), async (_c, w) => at("/users/me/status", { status_text: w.unique("busy ") })),
    row("POST /users/{user_id:int}/status", "a member's status", adminOnly(INSUFFICIENT, { bot: NO_BOTS, foreign: NO_SUCH_USER }), async (_c, w) => at(`/users/${w.victim.id}/status`, { status_text: w.unique("status ") })),
    row("POST /users/{user_id:int}/status", "own status through the administrators' endpoint", adminOnly(INSUFFICIENT, { bot: NO_BOTS }), async (c, w) =>
      at(`/users/${me(c).id}/status`, { status_text: w.unique("set ") }),
    ),
    row("GET /users/{user_id:int}/status", "another user's status", x("ok", { foreign: NO_SUCH_USER }), async (_c, w) => at(`/users/${w.other.id}/status`)),
    row("POST /users/me/presence", "own presence", x("ok", { bot: NO_BOTS }), async () => at("/users/me/presence", { status: "active" })),
    row("GET /realm/presence", "everyone's presence", x("ok"), async () => at("/realm/presence")),
    row("GET /users/{user_id_or_email}/presence", "another user's presence", x("ok", { foreign: NO_SUCH_USER }), async (_c, w) => at(`/users/${w.other.id}/presence`)),

    // --- user groups ---
    row("GET /user_groups", "every group", membersNoBots(), async () => at("/user_groups")),
    row("POST /user_groups/create", "new group", membersNoBots(), async (c, w) => at("/user_groups/create", { name: w.unique("new-group-"), description: "", members: [me(c).id] })),
    row("PATCH /user_groups/{user_group_id:int}", "own group", membersNoBots(), async (c, w) => at(`/user_groups/${await own.group(w, me(c))}`, { description: "mine" })),
    row("PATCH /user_groups/{user_group_id:int}", "other's group", membersNoBots({ admin: INSUFFICIENT, moderator: INSUFFICIENT, member: INSUFFICIENT, foreign: INVALID_GROUP }), async (_c, w) =>
      at(`/user_groups/${w.otherGroup}`, { description: w.unique("taken ") }),
    ),
    row("PATCH /user_groups/{user_group_id:int}", "a system group", membersNoBots({ owner: INSUFFICIENT, admin: INSUFFICIENT, moderator: INSUFFICIENT, member: INSUFFICIENT, foreign: INVALID_GROUP }), async (_c, w) =>
      at(`/user_groups/${w.systemGroup}`, { description: "system" }),
    ),
    // A guest may never manage a group (upstream: can_manage_group excludes guests); a bot may.
    row("POST /user_groups/{user_group_id:int}/deactivate", "own group", x("ok", { guest: INSUFFICIENT }), async (c, w) => at(`/user_groups/${await own.group(w, me(c))}/deactivate`)),
    // Upstream's deactivation view has no guest/bot guard: the group permission answers.
    row("POST /user_groups/{user_group_id:int}/deactivate", "other's group", x(INSUFFICIENT, { owner: "ok", foreign: INVALID_GROUP }), async (_c, w) =>
      at(`/user_groups/${w.otherGroup}/deactivate`),
      async (_c, w) => {
        await w.s.db.updateTable("user_groups").set({ deactivated: 0 }).where("id", "=", w.otherGroup).execute();
      },
    ),
    row("GET /user_groups/{user_group_id:int}/members", "other's group", membersNoBots({ foreign: INVALID_GROUP }), async (_c, w) => at(`/user_groups/${w.otherGroup}/members`)),
    row("POST /user_groups/{user_group_id:int}/members", "join other's group", membersNoBots({ admin: INSUFFICIENT, moderator: INSUFFICIENT, member: INSUFFICIENT, foreign: INVALID_GROUP }), async (c, w) =>
      at(`/user_groups/${w.otherGroup}/members`, { add: [me(c).id] }),
      async (c, w) => {
        await w.s.db.deleteFrom("user_group_members").where("group_id", "=", w.otherGroup).where("user_id", "=", c.user!.id).execute();
      },
    ),
    row("GET /user_groups/{user_group_id:int}/members/{user_id:int}", "other in other's group", membersNoBots({ foreign: INVALID_GROUP }), async (_c, w) => at(`/user_groups/${w.otherGroup}/members/${w.other.id}`)),
    row("GET /user_groups/{user_group_id:int}/subgroups", "other's group", membersNoBots({ foreign: INVALID_GROUP }), async (_c, w) => at(`/user_groups/${w.otherGroup}/subgroups`)),
    row("POST /user_groups/{user_group_id:int}/subgroups", "own group into other's group", membersNoBots({ admin: INSUFFICIENT, moderator: INSUFFICIENT, member: INSUFFICIENT, foreign: INVALID_GROUP }), async (c, w) =>
      at(`/user_groups/${w.otherGroup}/subgroups`, { add: [await own.group(w, me(c))] }),
      async (_c, w) => {
        await w.s.db.deleteFrom("user_group_subgroups").where("supergroup_id", "=", w.otherGroup).execute();
      },
    ),

    // --- invitations ---
    // Administrators see every invitation, others only their own.
    hiding(
      row("GET /invites", "own invitations", membersNoBots(), async () => at("/invites")),
      (_w, role) => (isAdminRole(role) ? [] : ["matrix-invitee@example.com"]),
    ),
    row("POST /invites", "invite as member", membersNoBots(), async (_c, w) => at("/invites", { invitee_emails: `${w.unique("invitee-")}@example.com`, stream_ids: [] })),
    row("POST /invites", "invite as administrator", membersNoBots({ moderator: MUST_ADMIN_PLAIN, member: MUST_ADMIN_PLAIN }), async (_c, w) =>
      at("/invites", { invitee_emails: `${w.unique("invitee-")}@example.com`, stream_ids: [], invite_as: Role.ADMINISTRATOR }),
    ),
    row("POST /invites", "invite as owner", membersNoBots({ admin: MUST_OWNER, moderator: MUST_OWNER, member: MUST_OWNER }), async (_c, w) =>
      at("/invites", { invitee_emails: `${w.unique("invitee-")}@example.com`, stream_ids: [], invite_as: Role.OWNER }),
    ),
    row("POST /invites/multiuse", "new invitation link", membersNoBots({ moderator: INSUFFICIENT, member: INSUFFICIENT }), async () => at("/invites/multiuse", {})),
    row("DELETE /invites/{invite_id:int}", "own invitation", membersNoBots(), async (c, w) => at(`/invites/${c.user && !c.user.is_bot && c.user.role !== Role.GUEST ? await own.invite(w, me(c)) : w.otherInvite}`)),
    row("DELETE /invites/{invite_id:int}", "other's invitation", membersNoBots({ moderator: MUST_ADMIN_PLAIN, member: MUST_ADMIN_PLAIN, foreign: NO_INVITATION }), async (_c, w) => at(`/invites/${w.otherInvite}`), async (_c, w) => {
      await w.s.db.updateTable("invites").set({ status: 0 }).where("id", "=", w.otherInvite).execute();
    }),
    row("POST /invites/{invite_id:int}/resend", "other's invitation", membersNoBots({ moderator: MUST_ADMIN_PLAIN, member: MUST_ADMIN_PLAIN, foreign: NO_INVITATION }), async (_c, w) => at(`/invites/${w.otherInvite}/resend`)),
    row("DELETE /invites/multiuse/{invite_id:int}", "an administrator's invitation link", membersNoBots({ moderator: MUST_ADMIN_PLAIN, member: MUST_ADMIN_PLAIN, foreign: NO_INVITATION }), async (_c, w) => {
      expectSuccess(await w.s.api.post(w.s.realm.admin, "/invites/multiuse", {}));
      const id = (await w.s.db.selectFrom("invites").select("id").where("referrer_id", "=", w.s.realm.admin.id).where("is_multiuse", "=", 1).orderBy("id", "desc").executeTakeFirstOrThrow()).id;
      return at(`/invites/multiuse/${id}`);
    }),

    // --- organization settings ---
    row("PATCH /realm", "the organization's description", adminOnly(), async (_c, w) => at("/realm", { description: w.unique("about ") })),
    row("PATCH /realm", "an owner-only setting", adminOnly(MUST_ADMIN, { admin: MUST_OWNER }), async (_c, w) => at("/realm", { waiting_period_threshold: Number(w.unique("")) })),
    row("GET /realm/linkifiers", "the organization's linkifiers", x("ok"), async () => at("/realm/linkifiers")),
    row("POST /realm/filters", "new linkifier", adminOnly(), async (_c, w) => {
      const n = w.unique("nl");
      return at("/realm/filters", { pattern: `${n}-(?P<id>[0-9]+)`, url_template: `https://${n}.example.net/{id}` });
    }),
    row("PATCH /realm/filters/{filter_id:int}", "a linkifier", adminOnly(MUST_ADMIN, { foreign: err("Linkifier not found.") }), async (_c, w) => {
      const n = w.unique("ul");
      return at(`/realm/filters/${await linkifier(w)}`, { pattern: `${n}-(?P<id>[0-9]+)`, url_template: `https://${n}.example.net/{id}` });
    }),
    row("DELETE /realm/filters/{filter_id:int}", "a linkifier", adminOnly(MUST_ADMIN, { foreign: err("Linkifier not found.") }), async (_c, w) => at(`/realm/filters/${await linkifier(w)}`)),
    row("PATCH /realm/linkifiers", "reorder", adminOnly(MUST_ADMIN, { foreign: err("The ordered list must enumerate all existing linkifiers exactly once") }), async (_c, w) => {
      const ids = await w.s.db.selectFrom("linkifiers").select("id").where("realm_id", "=", w.s.realm.realm.id).orderBy("id", "desc").execute();
      return at("/realm/linkifiers", { ordered_linkifier_ids: ids.map((r) => r.id) });
    }),
  ];
}

async function linkifier(w: World): Promise<number> {
  const n = w.unique("lk");
  const res = await w.s.api.post(w.s.realm.owner, "/realm/filters", { pattern: `${n}-(?P<id>[0-9]+)`, url_template: `https://${n}.example.net/{id}` });
  return expectSuccess(res).id as number;
}

/**
 * Reporting a message (spec 4.12, upstream report_message_backend): the notification
 * bot posts the report in the organization's moderation request channel and confirms
 * it to the reporter by direct message.
 */
import type { AppContext } from "../context.js";
import { ApiError } from "../errors.js";
import type { Realm, User } from "../db/schema.js";
import { findChannelsByIds } from "../db/queries/channels.js";
import { dmGroupMembers, RECIPIENT_DM_GROUP, RECIPIENT_PERSONAL, recipientsByIds, usersByIds } from "../db/queries/messages.js";
import { accessMessage } from "../lib/message-access.js";
import { reportConfirmation, reportNotice, reportTopic, type ReportFacts, type ReportType } from "../lib/message-report.js";
import { realmUrl } from "../lib/realm-host.js";
import { internalSendMessage } from "./internal-messages.js";

export const reportingDisabled = () => new ApiError("Message reporting is not enabled in this organization.");

export async function doReportMessage(ctx: AppContext, realm: Realm, reporter: User, messageId: number, reportType: ReportType, description: string): Promise<void> {
  const db = ctx.db;
  const channelId = realm.moderation_request_channel_id;
  const [moderationChannel] = channelId === null ? [] : await findChannelsByIds(db, realm.id, [channelId]);
  if (!moderationChannel || moderationChannel.deactivated) throw reportingDisabled();
  const { message, channel } = await accessMessage(db, reporter, messageId);

  let participantIds: number[] = [];
  let isGroup = false;
  if (!channel) {
    const [recipient] = await recipientsByIds(db, realm.id, [message.recipient_id]);
    if (recipient?.type === RECIPIENT_DM_GROUP) {
      isGroup = true;
      participantIds = (await dmGroupMembers(db, realm.id, [recipient.type_id])).get(recipient.type_id) ?? [];
    } else if (recipient?.type === RECIPIENT_PERSONAL) {
      participantIds = [...new Set([message.sender_id, recipient.type_id])];
    }
  }
  const users = new Map((await usersByIds(db, realm.id, [...new Set([message.sender_id, ...participantIds])])).map((u) => [u.id, u]));
  const sender = users.get(message.sender_id)!;
  const facts: ReportFacts = {
    reporter,
    sender,
    message,
    channel,
    participants: participantIds.sort((a, b) => a - b).map((id) => users.get(id)!),
    isGroup,
    reportType,
    description,
    realmUrl: realmUrl(realm.string_id, ctx.config.externalHost),
  };
  await internalSendMessage(ctx, realm, { to: { channel: moderationChannel, topic: reportTopic(sender) }, content: reportNotice(facts) });
  await internalSendMessage(ctx, realm, { to: { users: [reporter] }, content: reportConfirmation(facts) });
}

/**
 * THE route table. Each family's view file exports its `routes`; add the family here.
 */
import type { RouteDef } from "./route.js";
import { routes as authRoutes } from "./views/auth.js";
import { routes as channelRoutes } from "./views/channels.js";
import { routes as linkifierRoutes } from "./views/linkifiers.js";
import { routes as subscriptionRoutes } from "./views/subscriptions.js";
import { routes as userRoutes } from "./views/users.js";
import { routes as customProfileFieldRoutes } from "./views/custom-profile-fields.js";
import { routes as serverSettingsRoutes } from "./views/server-settings.js";
import { routes as messageRoutes } from "./views/messages.js";
import { routes as messageFlagRoutes } from "./views/message-flags.js";
import { routes as messageEditRoutes } from "./views/message-edits.js";
import { routes as eventRoutes } from "./views/events.js";
import { routes as presenceRoutes } from "./views/presence.js";
import { routes as typingRoutes } from "./views/typing.js";
import { routes as settingsRoutes } from "./views/settings.js";
import { routes as userGroupRoutes } from "./views/user-groups.js";
import { routes as inviteRoutes } from "./views/invites.js";
import { routes as navigationViewRoutes } from "./views/navigation-views.js";
import { routes as pushDeviceRoutes } from "./views/push-devices.js";
import { routes as draftRoutes } from "./views/drafts.js";
import { routes as scheduledMessageRoutes } from "./views/scheduled-messages.js";
import { routes as reminderRoutes } from "./views/reminders.js";
import { routes as reactionRoutes } from "./views/reactions.js";
import { routes as userTopicRoutes } from "./views/user-topics.js";
import { routes as topicDeletionRoutes } from "./views/topic-deletion.js";
import { routes as realmRoutes } from "./views/realm.js";
import { routes as messageReportRoutes } from "./views/message-reports.js";
import { routes as userStatusRoutes } from "./views/user-status.js";
import { routes as realmEmojiRoutes } from "./views/realm-emoji.js";
import { routes as markReadRoutes } from "./views/mark-read.js";
import { routes as channelTopicRoutes } from "./views/channel-topics.js";
import { routes as subscriptionPropertyRoutes } from "./views/subscription-properties.js";
import { routes as attachmentRoutes } from "./views/attachments.js";
import { routes as messageRenderRoutes } from "./views/message-render.js";

export const allRoutes: RouteDef[] = [
  ...authRoutes,
  ...channelRoutes,
  ...linkifierRoutes,
  ...subscriptionRoutes,
  ...userRoutes,
  ...customProfileFieldRoutes,
  ...serverSettingsRoutes,
  ...messageRoutes,
  ...messageFlagRoutes,
  ...messageEditRoutes,
  ...eventRoutes,
  ...presenceRoutes,
  ...typingRoutes,
  ...settingsRoutes,
  ...userGroupRoutes,
  ...inviteRoutes,
  ...navigationViewRoutes,
  ...pushDeviceRoutes,
  ...draftRoutes,
  ...scheduledMessageRoutes,
  ...reminderRoutes,
  ...reactionRoutes,
  ...userTopicRoutes,
  ...topicDeletionRoutes,
  ...realmRoutes,
  ...messageReportRoutes,
  ...userStatusRoutes,
  ...realmEmojiRoutes,
  ...markReadRoutes,
  ...channelTopicRoutes,
  ...subscriptionPropertyRoutes,
  ...attachmentRoutes,
  ...messageRenderRoutes,
];

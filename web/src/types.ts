/** The API records the app uses (the fields it reads; the server sends more). */

export interface User {
  user_id: number;
  full_name: string;
  email: string;
  is_bot?: boolean;
  is_active?: boolean;
}

export interface Subscription {
  stream_id: number;
  name: string;
  color?: string;
  is_muted?: boolean;
}

export interface Reaction {
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
  user_id: number;
}

export interface DisplayRecipient {
  id: number;
  full_name: string;
  email: string;
}

export interface Message {
  id: number;
  type: "stream" | "private";
  sender_id: number;
  sender_full_name: string;
  content: string;
  timestamp: number;
  stream_id?: number;
  subject: string;
  display_recipient: string | DisplayRecipient[];
  reactions: Reaction[];
  flags?: string[];
  last_edit_timestamp?: number;
}

export interface Draft {
  id?: number;
  type: "stream" | "private" | "";
  to: number[];
  topic: string;
  content: string;
  timestamp?: number;
}

export interface ScheduledMessage {
  scheduled_message_id: number;
  type: "stream" | "private";
  to: number | number[];
  topic?: string;
  content: string;
  scheduled_delivery_timestamp: number;
  failed?: boolean;
}

export interface Reminder {
  reminder_id: number;
  reminder_target_message_id: number;
  scheduled_delivery_timestamp: number;
  content?: string;
}

export interface Presence {
  active_timestamp?: number;
  idle_timestamp?: number;
}

export interface UserStatus {
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
  away?: boolean;
}

export interface TopicInfo {
  name: string;
  max_id: number;
}

/** user_topics visibility_policy values. */
export const POLICY = { none: 0, muted: 1, unmuted: 2, followed: 3 } as const;

/** What the main thread and the message writer's thread (message-writer.ts) say to each other. */
import type { OwnCommit } from "./wal-commits.js";

/** A messages row as a send stores it (the other columns take their defaults). */
export interface NewMessageRow {
  realm_id: number;
  sender_id: number;
  recipient_id: number;
  channel_id: number | null;
  topic: string;
  content: string;
  rendered_content: string;
  date_sent: number;
  sending_client: string;
  is_me_message: number;
  has_image: number;
  has_link: number;
}

/** The thread's two statements, compiled on the main thread (db/queries/messages.ts messageWriterStatements). */
export interface MessageWriterStatements {
  /** A messages row, RETURNING it. */
  insertMessage: string;
  /** The row's fields in the order of insertMessage's parameters. */
  messageFields: Array<keyof NewMessageRow>;
  /** A message's per-user rows; parameters: realm id, message id, the packed pairs. */
  insertUserMessages: string;
}

/** What the thread starts with. */
export interface MessageWriterStart {
  file: string;
  statements: MessageWriterStatements;
}

export interface MessageBatch {
  items: Array<{
    row: NewMessageRow;
    /** The per-user rows, packed as db/dialect.ts pairRows packs them: JSON of user_id * 1024 + flags. */
    recipients: string;
  }>;
}

export interface MessageBatchResult {
  /** In the batch's order: the stored row, or why it was not stored. */
  messages: Array<{ row: Record<string, unknown>; error?: undefined } | { row?: undefined; error: string }>;
  /** The thread's COMMITs, in order (wal-commits.ts). */
  commits: OwnCommit[];
  /** SQL statements run (tests count a send's statements). */
  statements: number;
}

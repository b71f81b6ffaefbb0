/**
 * A Kysely plugin that flushes the caches when this process writes a table they read,
 * before and after the statement: writes that publish no event (a password change, a
 * test setting a row directly) are seen by the next request too.
 */
import {
  DeleteQueryNode,
  InsertQueryNode,
  TableNode,
  UpdateQueryNode,
  type KyselyPlugin,
  type OperationNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from "kysely";
import type { TransactionObserver } from "../db/tx.js";
import type { Change } from "./change.js";

/** The tables cached values are read from, and what a write to each changes. */
const CHANGE_OF_TABLE: Record<string, Change> = {
  realms: { kind: "realm" },
  users: { kind: "user" },
  channels: { kind: "channels" },
  custom_profile_fields: { kind: "profile" },
  custom_profile_field_values: { kind: "profile" },
  user_messages: { kind: "messages" },
  subscriptions: { kind: "subscriptions" },
  user_status: { kind: "statuses" },
  realm_emoji: { kind: "emoji" },
  user_groups: { kind: "groups" },
  user_group_members: { kind: "groups" },
  user_group_subgroups: { kind: "groups" },
  sessions: { kind: "sessions" },
  messages: { kind: "messageRecords" },
  reactions: { kind: "messageRecords" },
  submessages: { kind: "messageRecords" },
  message_edits: { kind: "messageRecords" },
  linkifiers: { kind: "linkifiers" },
  alert_words: { kind: "alertWords" },
};

/**
 * Tables whose inserts and updates leave cached values valid: a new session is not cached
 * until used, and a session's last_seen_at is not what the lookup checks. Only deletes flush,
 * so recording a session's activity does not empty every session's cache entry.
 */
const FLUSHED_ON_DELETE_ONLY = new Set(["sessions"]);

/** Tables whose inserts leave cached values valid: a new message is in no cached record (every send inserts one). */
const NOT_FLUSHED_ON_INSERT = new Set(["messages"]);

export class CacheWriteWatcher implements KyselyPlugin, TransactionObserver {
  private readonly pending = new WeakMap<object, Change>();
  /** Transactions open now, and the changes written since none was open. */
  private openTransactions = 0;
  private uncommitted: Change[] = [];

  constructor(
    private readonly apply: (change: Change) => void,
    /** Called once a write is committed (other nodes are told then). */
    private readonly committed: (change: Change) => void = () => undefined,
  ) {}

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const change = changeOfWrite(args.node);
    if (change) {
      this.pending.set(args.queryId, change);
      this.apply(change);
      if (this.openTransactions > 0) this.uncommitted.push(change);
    }
    return args.node;
  }

  begun(): void {
    this.openTransactions++;
  }

  /**
   * A transaction ended: its writes are now visible to other connections (the SQLite
   * reader, PostgreSQL's pool), so what was filled from them before the COMMIT is flushed
   * again. Which transaction wrote what is not tracked: every ending re-applies the
   * changes written while any transaction was open, until none is.
   */
  ended(): void {
    this.openTransactions--;
    for (const change of this.uncommitted) this.apply(change);
    if (this.openTransactions === 0) {
      for (const change of this.uncommitted) this.committed(change);
      this.uncommitted = [];
    }
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const change = this.pending.get(args.queryId);
    if (change) {
      this.apply(change);
      if (this.openTransactions === 0) this.committed(change);
    }
    return args.result;
  }
}

function changeOfWrite(node: RootOperationNode): Change | undefined {
  if (InsertQueryNode.is(node)) return changeOfTable(node.into, "insert");
  if (UpdateQueryNode.is(node)) return changeOfTable(node.table, "update");
  if (DeleteQueryNode.is(node)) return node.from.froms.map((from) => changeOfTable(from, "delete")).find((c) => c !== undefined);
  return undefined;
}

function changeOfTable(node: OperationNode | undefined, write: "insert" | "update" | "delete"): Change | undefined {
  if (node === undefined) return undefined;
  // An aliased table (`users as u`) wraps the table node.
  const table = TableNode.is(node) ? node : (node as { node?: OperationNode }).node;
  if (table === undefined || !TableNode.is(table)) return undefined;
  const name = table.table.identifier.name;
  if (write !== "delete" && FLUSHED_ON_DELETE_ONLY.has(name)) return undefined;
  if (write === "insert" && NOT_FLUSHED_ON_INSERT.has(name)) return undefined;
  return CHANGE_OF_TABLE[name];
}

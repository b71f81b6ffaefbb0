/**
 * On a node of a cluster, GET and DELETE /events for a queue held by another node are
 * answered by that node (src/cluster/forward.ts); this node only relays the answer.
 */
import { FORWARDED_HEADER, forwardRequest, type ForwardedAnswer } from "../../cluster/forward.js";
import { ApiError } from "../../errors.js";
import { badEventQueueId } from "../../events/queues.js";
import { closingError } from "../closing.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { SUCCESS_HEAD, serializedFields } from "../response.js";

/** The other node's answer when the request's queue lives there; undefined when it is this node's. */
export async function answerFromQueueNode(req: AuthedRequest): Promise<ViewResult | undefined> {
  const cluster = req.ctx.cluster;
  const queueId = req.params.get("queue_id");
  if (!cluster || queueId === undefined || req.raw.headers[FORWARDED_HEADER] !== undefined) return undefined;
  const nodeUrl = await cluster.queueNode(queueId);
  if (nodeUrl === null) return undefined;
  // The client going away ends the forwarded long-poll too, and so does this node's shutdown.
  const abort = new AbortController();
  const socket = req.raw.raw.socket;
  const onClose = () => abort.abort();
  socket.once("close", onClose);
  const closing = req.ctx.closing;
  try {
    return relay(await forwardRequest(nodeUrl, req.raw, req.params, closing ? AbortSignal.any([abort.signal, closing]) : abort.signal));
  } catch (err) {
    if (closing?.aborted && !abort.signal.aborted) {
      // This node is shutting down: the poll ends with no events (nothing was acknowledged:
      // the client polls again, reaching another node); an unfinished DELETE was not done.
      if (req.raw.method === "GET") return { events: [] };
      throw closingError();
    }
    if (abort.signal.aborted || err instanceof ApiError) throw err;
    // The node is gone (killed, restarting): so is the queue; the client re-registers.
    throw badEventQueueId(queueId);
  } finally {
    socket.off("close", onClose);
  }
}

/** The other node's JSON answer, success or error, as this node's own. */
function relay(answer: ForwardedAnswer): ViewResult {
  const body = answer.body.trimEnd();
  if (answer.status === 200 && body.startsWith(SUCCESS_HEAD) && body.endsWith("}")) return serializedFields(body.slice(SUCCESS_HEAD.length, -1));
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(body) as Record<string, unknown>;
  } catch {
    throw new ApiError("Event queue node answered with no JSON", { status: 502, code: "BAD_GATEWAY" });
  }
  const { result, msg, code, ...data } = parsed;
  // A success with no fields of its own (DELETE /events): `{"result":"success","msg":""}`.
  if (answer.status === 200 && result === "success") return data;
  throw new ApiError(String(msg), { status: answer.status, code: String(code ?? "BAD_REQUEST"), data });
}

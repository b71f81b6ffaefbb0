/** Reporting a message: POST /messages/{message_id}/report (spec 4.12). */
import { doReportMessage } from "../../actions/message-reports.js";
import { ApiError } from "../../errors.js";
import { MAX_REPORT_DESCRIPTION_LENGTH, REPORT_TYPES, type ReportType } from "../../lib/message-report.js";
import { paramMessages } from "../params/messages.js";
import { p } from "../params/kinds.js";
import { parseParams, pathInt } from "../params/parse.js";
import type { AuthedRequest, ViewResult } from "../request.js";
import { route } from "../route.js";

/** POST /api/v1/messages/{message_id}/report */
async function reportMessage(req: AuthedRequest): Promise<ViewResult> {
  const messageId = pathInt(req, "message_id");
  const params = parseParams(req, {
    report_type: p.str(),
    description: p.str({ maxLength: MAX_REPORT_DESCRIPTION_LENGTH }).default(""),
  });
  if (!(REPORT_TYPES as readonly string[]).includes(params.report_type)) throw new ApiError(paramMessages.notInList("report_type"));
  // Whitespace counts as an explanation, as upstream.
  if (params.report_type === "other" && params.description === "") throw new ApiError("An explanation is required.");
  await doReportMessage(req.ctx, req.realm, req.user, messageId, params.report_type as ReportType, params.description);
  return {};
}

export const routes = [route("POST", "/messages/{message_id:int}/report", reportMessage)];

/** Serves the emoji data file (lib/emoji-data-file.ts) with year-long immutable caching. */
import type { FastifyInstance } from "fastify";
import { ApiError } from "../errors.js";
import { emojiDataFile } from "../lib/emoji-data-file.js";
import { sendApiError } from "./error-handler.js";

const CACHE_CONTROL = "public, max-age=31536000, immutable";

export function registerEmojiData(app: FastifyInstance): void {
  app.get("/static/generated/emoji/:file", (request, reply) => {
    const current = emojiDataFile();
    if (request.url.split("?")[0] !== current.path) return sendApiError(reply, new ApiError("Not Found", { status: 404, code: "NOT_FOUND" }));
    return reply.code(200).header("content-type", "application/json; charset=utf-8").header("cache-control", CACHE_CONTROL).send(current.body);
  });
}

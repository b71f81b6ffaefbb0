/** Serves the emoji data file (lib/emoji-data-file.ts) with year-long immutable caching. */
import type { FastifyInstance } from "fastify";
import { emojiDataFile } from "../lib/emoji-data-file.js";
import { IMMUTABLE } from "./cache-control.js";
import { sendNotFound } from "./error-handler.js";

export function registerEmojiData(app: FastifyInstance): void {
  app.get("/static/generated/emoji/:file", (request, reply) => {
    const current = emojiDataFile();
    if (request.url.split("?")[0] !== current.path) return sendNotFound(reply);
    return reply.code(200).header("content-type", "application/json; charset=utf-8").header("cache-control", IMMUTABLE).send(current.body);
  });
}

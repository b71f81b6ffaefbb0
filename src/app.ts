/** buildApp(ctx): the Fastify instance with parsers, routes and error handling. Never listens. */
import Fastify, { type FastifyInstance, type FastifyServerOptions } from "fastify";
import formbody from "@fastify/formbody";
import multipart from "@fastify/multipart";
import type { AppContext } from "./context.js";
import { ApiError } from "./errors.js";
import { handleError, sendApiError } from "./http/error-handler.js";
import { registerRoutes } from "./http/rest.js";
import { allRoutes } from "./http/routes.js";

export interface BuildOptions {
  logger?: FastifyServerOptions["logger"];
}

export async function buildApp(ctx: AppContext, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: ctx.config.maxRequestBytes,
    // Long-polls stay open for up to longPollSeconds; leave room above that.
    requestTimeout: 0,
  });

  await app.register(formbody, { bodyLimit: ctx.config.maxRequestBytes });
  await app.register(multipart, {
    attachFieldsToBody: "keyValues",
    limits: { fieldSize: ctx.config.maxRequestBytes, fileSize: ctx.config.maxRequestBytes, files: 5 },
  });
  // Like upstream, bodies of other types (JSON included) are not parsed: their parameters are absent.
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: ctx.config.maxRequestBytes }, (_req, _body, done) =>
    done(null, undefined),
  );

  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) => {
    sendApiError(reply, new ApiError("Not Found", { status: 404, code: "NOT_FOUND" }));
  });

  if (ctx.log === undefined) ctx.log = app.log;
  // Event queues: route published events; answer waiting long-polls before the server closes.
  ctx.eventQueues.start();
  app.addHook("preClose", async () => ctx.eventQueues.stop());
  registerRoutes(app, ctx, allRoutes);
  return app;
}

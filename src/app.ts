/** buildApp(ctx): the Fastify instance with parsers, routes and error handling. Never listens. */
import Fastify, { type FastifyInstance, type FastifyServerOptions } from "fastify";
import formbody from "@fastify/formbody";
import multipart from "@fastify/multipart";
import type { AppContext } from "./context.js";
import { ApiError } from "./errors.js";
import { handleError, sendApiError } from "./http/error-handler.js";
import { registerRoutes } from "./http/rest.js";
import { allRoutes } from "./http/routes.js";
import { registerSignupPages } from "./http/signup-pages.js";

export interface BuildOptions {
  logger?: FastifyServerOptions["logger"];
}

export async function buildApp(ctx: AppContext, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: ctx.config.maxRequestBytes,
    // Long-polls stay open for up to longPollSeconds; leave room above that.
    requestTimeout: 0,
    // Path segments carry emails (up to 254 characters); the default limit (100) rejected valid ones.
    routerOptions: { maxParamLength: 1000 },
    // Undecodable or over-long URLs get the JSON error envelope, not Fastify's own body.
    frameworkErrors: (error, request, reply) => handleError(error, request, reply),
  });

  await app.register(formbody, { bodyLimit: ctx.config.maxRequestBytes });
  // The multipart parser reads the raw stream and ignores bodyLimit (over-long fields were
  // silently truncated, many fields unbounded): refuse a declared length over the limit up
  // front, and bound the parts of chunked bodies.
  app.addHook("onRequest", async (request) => {
    const length = Number(request.headers["content-length"] ?? 0);
    if (length > ctx.config.maxRequestBytes) throw new ApiError("Request entity too large", { status: 413 });
  });
  await app.register(multipart, {
    attachFieldsToBody: "keyValues",
    limits: { fieldSize: ctx.config.maxRequestBytes, fileSize: ctx.config.maxRequestBytes, files: 5, fields: 100, parts: 105 },
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
  registerSignupPages(app, ctx);
  return app;
}

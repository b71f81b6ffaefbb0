/** buildApp(ctx): the Fastify instance with parsers, routes and error handling. Never listens. */
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from "fastify";
import { registerUploadPages } from "./http/upload-pages.js";
import type { AppContext } from "./context.js";
import { handleError, sendNotFound } from "./http/error-handler.js";
import { checkQueryString, parseFormBody } from "./http/body/form.js";
import { limitBodySize } from "./http/body/size-limit.js";
import { registerMultipart } from "./http/body/multipart.js";
import { registerRoutes } from "./http/rest.js";
import { allRoutes } from "./http/routes.js";
import { registerSignupPages } from "./http/signup-pages.js";
import { registerLoginPages } from "./http/login-pages.js";
import { registerEmojiFiles } from "./http/emoji-files.js";
import { registerEmojiData } from "./http/emoji-data.js";
import { registerAccessLog } from "./http/access-log.js";
import { closingError, drainOnClose } from "./http/closing.js";
import { registerWebApp } from "./http/web-app.js";

export interface BuildOptions {
  logger?: FastifyServerOptions["logger"];
}

export async function buildApp(ctx: AppContext, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: opts.logger ?? false,
    // One access-log line per request instead (http/access-log.ts), and no per-request child logger.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: (logger) => logger,
    bodyLimit: ctx.config.maxRequestBytes,
    // Long-polls stay open for up to longPollSeconds; leave room above that.
    requestTimeout: 0,
    // Path segments carry emails (up to 254 characters); the default limit (100) rejected valid ones.
    routerOptions: { maxParamLength: 1000 },
    // Undecodable or over-long URLs get the JSON error envelope, not Fastify's own body.
    frameworkErrors: (error, request, reply) => handleError(error, request, reply),
    // Requests arriving while the server closes get a 503 in the envelope instead (http/closing.ts).
    return503OnClosing: false,
  });
  // Event queues: route published events; on shutdown, refuse new requests and answer waiting polls.
  ctx.eventQueues.start();
  const closing = drainOnClose(app, ctx);

  // Every body is capped by its route's limit (the global one unless the route sets its own),
  // whatever its encoding; undecodable query strings are refused before any view runs.
  // A callback hook, not an async one: no promise per request.
  app.addHook("onRequest", (request, _reply, done) => {
    if (closing.aborted) return done(closingError());
    try {
      limitBodySize(request, ctx.config.maxRequestBytes);
      checkQueryString(request.url);
    } catch (err) {
      return done(err as Error);
    }
    done();
  });
  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "buffer" }, (_req, body, done) => {
    try {
      done(null, parseFormBody(body as Buffer));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  // Read only for requests that carry one (readMultipartBody, called by the routes).
  await registerMultipart(app, { fieldSize: ctx.config.maxRequestBytes, fileSize: ctx.config.maxRequestBytes, files: 5, fields: 100, parts: 105 });
  // Like upstream, bodies of other types (JSON included) are not parsed: their parameters are absent.
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_req, _body, done) =>
    done(null, undefined),
  );

  registerAccessLog(app);
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((_request, reply) => {
    sendNotFound(reply);
  });

  if (ctx.log === undefined) ctx.log = app.log;
  registerRoutes(app, ctx, allRoutes);
  registerSignupPages(app, ctx);
  registerLoginPages(app, ctx);
  registerEmojiFiles(app, ctx);
  registerEmojiData(app);
  registerUploadPages(app, ctx);
  registerWebApp(app, ctx);
  return app;
}

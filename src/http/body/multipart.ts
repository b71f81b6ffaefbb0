/**
 * Multipart bodies, read by @fastify/multipart but only for requests that carry one.
 *
 * The plugin's `attachFieldsToBody` mode reads the body in an async preValidation hook that
 * runs for every request, and the plugin always adds async onRequest and onResponse hooks
 * that clean up temporary files of `saveRequestFiles` (its disk mode). Parley keeps files in
 * memory and never saves any, so those three hooks were three promises per request of every
 * kind for nothing (about a tenth of the cheapest GET's instructions, bench/instructions.ts).
 * Here the plugin runs without the cleanup hooks, and `readMultipartBody` is called by the
 * routes that take bodies, before anything reads `request.body`.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import multipart, { type Multipart, type MultipartFields } from "@fastify/multipart";
import type { UploadedFile } from "../../lib/uploads.js";

export interface MultipartLimits {
  fieldSize: number;
  fileSize: number;
  files: number;
  fields: number;
  parts: number;
}

/** The hooks the plugin adds for its disk mode only (see above). */
const DISK_MODE_HOOKS = new Set(["onRequest", "onResponse"]);

export async function registerMultipart(app: FastifyInstance, limits: MultipartLimits): Promise<void> {
  // The plugin's decorators and content-type parser go on `app` itself (it is not
  // encapsulated); only its addHook calls for the disk-mode hooks are left out.
  const withoutDiskModeHooks = Object.create(app, {
    addHook: {
      value: (name: string, hook: unknown) => (DISK_MODE_HOOKS.has(name) ? app : app.addHook(name as "onRequest", hook as never)),
    },
  }) as FastifyInstance;
  await new Promise<void>((resolve, reject) => multipart(withoutDiskModeHooks, { limits }, (err?: Error) => (err ? reject(err) : resolve())));
}

/**
 * Reads a multipart body into `request.body` as the form decoder shapes a form body: each
 * field's value (a list when repeated), files as UploadedFile values. Parts past the
 * route's limits fail with the plugin's errors (413 through the error handler).
 */
export async function readMultipartBody(request: FastifyRequest): Promise<void> {
  let fields: MultipartFields = {};
  for await (const part of request.parts(request.routeOptions.config.multipartOptions)) {
    fields = part.fields;
    if (part.type === "file") {
      const file: UploadedFile = { filename: part.filename, contentType: part.mimetype || null, data: await part.toBuffer() };
      (part as unknown as { value: UploadedFile }).value = file;
    }
  }
  const body: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(fields)) {
    const values = (Array.isArray(field) ? field : [field]).map((f) => (f as Multipart & { value?: unknown }).value).filter((v) => v !== undefined);
    if (values.length > 0) body[name] = Array.isArray(field) ? values : values[0];
  }
  request.body = body;
}

/** The files of a multipart body: readMultipartBody (body/multipart.ts) keeps each as an UploadedFile. */
import type { UploadedFile } from "../lib/uploads.js";

export function uploadedFiles(body: unknown): UploadedFile[] {
  if (!body || typeof body !== "object") return [];
  const values = Object.values(body as Record<string, unknown>).flat();
  return values.filter((v): v is UploadedFile => typeof v === "object" && v !== null && Buffer.isBuffer((v as UploadedFile).data));
}

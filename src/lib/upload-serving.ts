/** How stored files are sent back: which types a browser may show inline, the others as downloads. */
const INLINE_TYPES = /^(image\/(png|jpeg|gif|webp|avif|bmp)|audio\/[\w.+-]+|video\/[\w.+-]+|application\/pdf|text\/plain)$/;

export function uploadResponseHeaders(contentType: string | null, fileName: string): Record<string, string> {
  const type = contentType ?? "application/octet-stream";
  const inline = INLINE_TYPES.test(type);
  return {
    "Content-Type": inline ? type : "application/octet-stream",
    "Content-Disposition": `${inline ? "inline" : "attachment"}; filename*=UTF-8''${encodeURIComponent(fileName)}`,
    // Uploaded content never runs as a page of this site.
    "Content-Security-Policy": "default-src 'none'; sandbox",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "private, max-age=3600",
  };
}

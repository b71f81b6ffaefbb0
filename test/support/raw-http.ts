/** A raw HTTP/1.1 request on a real socket (chunked bodies, no Content-Length), for body-limit tests. */
import http from "node:http";
import type { FastifyInstance } from "fastify";
import type { AddressInfo } from "node:net";

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Body bytes handed to the socket before the response ended. */
  written: number;
}

/** Listens on 127.0.0.1, port 0 (once) and returns the port. */
export async function listenLocally(app: FastifyInstance): Promise<number> {
  if (!app.server.listening) await app.listen({ port: 0, host: "127.0.0.1" });
  return (app.server.address() as AddressInfo).port;
}

/**
 * Sends `chunks` one by one with Transfer-Encoding: chunked (no Content-Length). The server
 * may answer and close before every chunk is written: the response is what counts.
 */
export function chunkedRequest(port: number, path: string, headers: Record<string, string>, chunks: Iterable<Buffer | string>): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const req = http.request({ host: "127.0.0.1", port, path, method: "POST", headers: { ...headers, "transfer-encoding": "chunked" } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => {
        settled = true;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, written });
      });
      res.on("error", (err) => (settled ? undefined : reject(err)));
    });
    req.on("error", (err) => (settled ? undefined : setTimeout(() => (settled ? undefined : reject(err)), 200)));
    const it = chunks[Symbol.iterator]();
    let written = 0;
    const writeNext = (): void => {
      if (req.destroyed || settled) return;
      const next = it.next();
      if (next.done) {
        req.end();
        return;
      }
      written += Buffer.byteLength(next.value);
      if (req.write(next.value)) setImmediate(writeNext);
      else req.once("drain", writeNext);
    };
    writeNext();
  });
}

/** A multipart/form-data body split into one chunk per field. */
export function multipartChunks(fields: Iterable<[string, string]>, boundary = "parleyboundary"): { contentType: string; chunks: Iterable<string> } {
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    chunks: (function* () {
      for (const [name, value] of fields) yield `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
      yield `--${boundary}--\r\n`;
    })(),
  };
}

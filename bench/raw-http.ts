/**
 * A lean HTTP/1.1 client for the load generators: requests are prepared bytes on plain
 * keep-alive sockets, and a response is complete once its Content-Length bytes arrived
 * (counted, never joined), so the generator's own cost stays small even for bodies of
 * megabytes.
 */
import net from "node:net";
import { basicAuth, type BenchUser } from "./http-client.js";

export interface RawRequest {
  method: string;
  path: string;
  body?: string;
}

/** One kind of request sent over `connections` keep-alive connections for `seconds`. */
export interface RawLoadSpec extends RawRequest {
  /** Successive requests take turns as these users (none: no Authorization). */
  users: BenchUser[];
  seconds: number;
  connections: number;
}

/** The prepared bytes of the spec's request, one per user (successive requests take turns). */
export function requestsOf(spec: RawLoadSpec): Buffer[] {
  return (spec.users.length > 0 ? spec.users : [undefined]).map((user) => requestBytes(spec, user));
}

function requestBytes(spec: RawRequest, user: BenchUser | undefined): Buffer {
  const lines = [`${spec.method} ${spec.path} HTTP/1.1`, "Host: 127.0.0.1", "Connection: keep-alive"];
  if (user) lines.push(`Authorization: ${basicAuth(user)}`);
  if (spec.body !== undefined) lines.push("Content-Type: application/x-www-form-urlencoded", `Content-Length: ${Buffer.byteLength(spec.body)}`);
  return Buffer.from(`${lines.join("\r\n")}\r\n\r\n${spec.body ?? ""}`);
}

export interface RawConnection {
  socket: net.Socket;
  /** A request is out and its response not complete. */
  busy: boolean;
  /** When the request now out was due (performance.now()); the latency counts from it. */
  dueAt: number;
}

/**
 * Opens a keep-alive connection. `answer` runs once per complete response with its status;
 * `lost` when the connection closes with a request out.
 */
export function openRawConnection(port: number, answer: (c: RawConnection, status: number) => void, lost: (c: RawConnection) => void): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const c: RawConnection = { socket: net.connect({ host: "127.0.0.1", port }, () => resolve(c)), busy: false, dueAt: 0 };
    let head: Buffer | null = null; // the start of a response whose header is incomplete
    let status = 0;
    let bodyLeft = -1; // body bytes still to come; -1 while reading a header
    c.socket.setNoDelay(true);
    c.socket.on("error", reject);
    c.socket.on("close", () => c.busy && lost(c));
    c.socket.on("data", (chunk: Buffer) => {
      let data = chunk;
      while (data.length > 0) {
        if (bodyLeft < 0) {
          const buffered: Buffer = head === null ? data : Buffer.concat([head, data]);
          const headerEnd = buffered.indexOf("\r\n\r\n");
          if (headerEnd < 0) {
            head = buffered;
            return;
          }
          head = null;
          const text = buffered.subarray(0, headerEnd).toString("latin1");
          status = Number(text.slice(9, 12));
          if (/transfer-encoding:\s*chunked/i.test(text)) {
            c.socket.destroy(new Error("the lean client reads Content-Length bodies only"));
            return;
          }
          bodyLeft = Number(/content-length:\s*(\d+)/i.exec(text)?.[1] ?? 0);
          data = buffered.subarray(headerEnd + 4);
        }
        const taken = Math.min(bodyLeft, data.length);
        bodyLeft -= taken;
        data = data.subarray(taken);
        if (bodyLeft === 0) {
          bodyLeft = -1;
          answer(c, status);
        }
      }
    });
  });
}

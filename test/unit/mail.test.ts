import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, type Config } from "../../src/config.js";
import { sendMail } from "../../src/mail/send-mail.js";
import { listOutbox, readOutboxMessage } from "../../src/mail/outbox.js";
import { outboxCommand } from "../../src/cli-outbox.js";

/** A minimal SMTP server that accepts every message and keeps its DATA. */
function fakeSmtp(): Promise<{ server: Server; port: number; received: string[] }> {
  const received: string[] = [];
  const server = createServer((socket) => {
    let buffer = "";
    let inData = false;
    socket.write("220 fake ESMTP\r\n");
    socket.on("data", (chunk) => {
      buffer += chunk.toString("utf8");
      for (;;) {
        if (inData) {
          const end = buffer.indexOf("\r\n.\r\n");
          if (end < 0) return;
          received.push(buffer.slice(0, end));
          buffer = buffer.slice(end + 5);
          inData = false;
          socket.write("250 queued\r\n");
          continue;
        }
        const nl = buffer.indexOf("\r\n");
        if (nl < 0) return;
        const line = buffer.slice(0, nl).toUpperCase();
        buffer = buffer.slice(nl + 2);
        if (line.startsWith("EHLO") || line.startsWith("HELO")) socket.write("250 fake\r\n");
        else if (line.startsWith("DATA")) {
          inData = true;
          socket.write("354 go on\r\n");
        } else if (line.startsWith("QUIT")) socket.end("221 bye\r\n");
        else socket.write("250 ok\r\n");
      }
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, port: (server.address() as { port: number }).port, received })));
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "parley-mail-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const config = (over: Partial<Config>): Config => ({ ...loadConfig({}), dataDir: dir, mailFrom: "noreply@example.com", ...over });
const mail = { to: "someone@example.com", subject: "Hello there", text: "Line one\nLine two\n" };

describe("sendMail", () => {
  it("writes a complete message to the outbox when no SMTP server is configured", async () => {
    const outcome = await sendMail(config({ smtpUrl: undefined }), mail);
    expect(outcome.via).toBe("outbox");
    const [entry] = await listOutbox(dir);
    expect(entry).toMatchObject({ to: "someone@example.com", subject: "Hello there" });
    const raw = await readOutboxMessage(dir, entry!.file);
    expect(raw).toContain("From: noreply@example.com");
    expect(raw).toContain("Line one\nLine two");
  });

  it("hands the message to the SMTP server when configured", async () => {
    const smtp = await fakeSmtp();
    try {
      const before = (await listOutbox(dir)).length;
      const outcome = await sendMail(config({ smtpUrl: `smtp://127.0.0.1:${smtp.port}` }), { ...mail, subject: "Via SMTP" });
      expect(outcome).toEqual({ via: "smtp" });
      expect(smtp.received).toHaveLength(1);
      expect(smtp.received[0]).toContain("Subject: Via SMTP");
      expect((await listOutbox(dir)).length).toBe(before);
    } finally {
      smtp.server.close();
    }
  });

  it("keeps the message in the outbox when the SMTP server cannot be reached", async () => {
    const closed = await fakeSmtp();
    const port = closed.port;
    await new Promise((r) => closed.server.close(r));
    const errors: unknown[] = [];
    const outcome = await sendMail(config({ smtpUrl: `smtp://127.0.0.1:${port}` }), { ...mail, subject: "Unreachable" }, { error: (e) => errors.push(e) });
    expect(outcome.via).toBe("outbox");
    expect(errors).toHaveLength(1);
    expect((await listOutbox(dir)).map((e) => e.subject)).toContain("Unreachable");
  });
});

describe("parley outbox", () => {
  it("lists the messages and prints one", async () => {
    let out = "";
    expect(await outboxCommand(config({}), ["--json"], (s) => (out += s))).toBe(0);
    const entries = JSON.parse(out);
    expect(entries.map((e: any) => e.subject)).toEqual(["Hello there", "Unreachable"]);
    out = "";
    expect(await outboxCommand(config({}), [], (s) => (out += s))).toBe(0);
    expect(out.trim().split("\n")).toHaveLength(2);
    out = "";
    expect(await outboxCommand(config({}), [entries[1].file], (s) => (out += s))).toBe(0);
    expect(out).toContain("Subject: Unreachable");
    expect(await outboxCommand(config({}), ["../etc/passwd"], () => {})).toBe(1);
  });

  it("says so when the outbox is empty", async () => {
    const empty = mkdtempSync(join(tmpdir(), "parley-mail-empty-"));
    let out = "";
    expect(await outboxCommand(config({ dataDir: empty }), [], (s) => (out += s))).toBe(0);
    expect(out).toContain("is empty");
    rmSync(empty, { recursive: true, force: true });
  });
});

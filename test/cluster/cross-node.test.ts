/**
 * Three Parley nodes on one PostgreSQL and one Redis behind a round-robin proxy: events
 * reach a queue whatever node sent them and whatever node a poll lands on, once and in
 * order; presence, typing, rate limits and deactivations are seen on every node; uploaded
 * files and custom emoji are served by every node; a scheduled message is sent once; a killed node's queues are reported gone.
 * Runs with TEST_DATABASE_URL and TEST_REDIS_URL (CI's PostgreSQL pass sets both).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runCli } from "../cli/run-cli.js";
import { clusterConfigured, startCluster, stopProcess, type Cluster } from "../support/cluster.js";
import { pngImage } from "../support/multipart.js";

vi.setConfig({ testTimeout: 60_000 });

let cluster: Cluster;
let member: Account;

interface Account {
  email: string;
  api_key: string;
  user_id: number;
}

type Body = Record<string, any>;

async function call(base: string, who: Account, method: string, path: string, params: Record<string, unknown> = {}): Promise<{ status: number; body: Body }> {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) form.set(k, typeof v === "string" ? v : JSON.stringify(v));
  const query = method === "GET" || method === "DELETE" ? `?${form}` : "";
  const res = await fetch(`${base}/api/v1${path}${query}`, {
    method,
    headers: {
      authorization: `Basic ${Buffer.from(`${who.email}:${who.api_key}`).toString("base64")}`,
      ...(query ? {} : { "content-type": "application/x-www-form-urlencoded" }),
    },
    body: query ? undefined : form.toString(),
  });
  return { status: res.status, body: (await res.json()) as Body };
}

async function ok(base: string, who: Account, method: string, path: string, params: Record<string, unknown> = {}): Promise<Body> {
  const res = await call(base, who, method, path, params);
  expect(res.body.result, JSON.stringify(res.body)).toBe("success");
  return res.body;
}

/** Polls through the proxy until `count` events of `type` arrived (each poll may land on another node). */
async function collect(who: Account, queueId: string, type: string, count: number): Promise<Body[]> {
  const got: Body[] = [];
  let last = -1;
  const deadline = Date.now() + 20_000;
  while (got.filter((e) => e.type === type).length < count && Date.now() < deadline) {
    const body = await ok(cluster.proxyUrl, who, "GET", "/events", { queue_id: queueId, last_event_id: String(last), dont_block: "true" });
    for (const event of body.events as Body[]) {
      expect(event.id).toBe(last + 1);
      last = event.id as number;
      if (event.type !== "heartbeat") got.push(event);
    }
    if ((body.events as Body[]).length === 0) await new Promise((r) => setTimeout(r, 50));
  }
  return got.filter((e) => e.type === type);
}

describe.skipIf(!clusterConfigured)("three nodes behind a round-robin proxy", () => {
  beforeAll(async () => {
    cluster = await startCluster(3, { PARLEY_LOGIN_ATTEMPTS_PER_30_MINUTES: "5" });
    const created = await runCli(["create-user", "--email", "member@chat.test", "--full-name", "Member", "--json"], cluster.env);
    expect(created.code, created.stderr).toBe(0);
    member = JSON.parse(created.stdout) as Account;
  }, 180_000);

  afterAll(async () => {
    await cluster?.stop();
  });

  it("delivers every message once and in order, whatever node sent it or is polled", async () => {
    const [a] = cluster.nodes;
    const { queue_id } = await ok(a.url, cluster.owner, "POST", "/register", { event_types: ["message"] });
    expect(queue_id).toMatch(/^\w+:/);
    const sent: number[] = [];
    for (let i = 0; i < 9; i++) {
      // Through the proxy: three sends from each node.
      const body = await ok(cluster.proxyUrl, member, "POST", "/messages", { type: "direct", to: [cluster.owner.user_id], content: `message ${i}` });
      sent.push(body.id as number);
    }
    const events = await collect(cluster.owner, queue_id as string, "message", 9);
    expect(events.map((e) => e.message.id)).toEqual(sent);
  });

  it("answers a waiting long-poll on another node as soon as the event is sent", async () => {
    const [a, b, c] = cluster.nodes;
    const { queue_id, last_event_id } = await ok(a.url, cluster.owner, "POST", "/register", { event_types: ["message"] });
    const poll = ok(b.url, cluster.owner, "GET", "/events", { queue_id, last_event_id: String(last_event_id) });
    await new Promise((r) => setTimeout(r, 200));
    const { id } = await ok(c.url, member, "POST", "/messages", { type: "direct", to: [cluster.owner.user_id], content: "long-poll" });
    const body = await poll;
    expect((body.events as Body[]).map((e) => e.message?.id)).toEqual([id]);
  });

  it("shows presence and typing across nodes", async () => {
    const [a, b, c] = cluster.nodes;
    await ok(a.url, member, "POST", "/users/me/presence", { status: "active" });
    const presence = await ok(b.url, cluster.owner, "GET", "/realm/presence");
    expect(presence.presences[member.email]).toBeDefined();
    const { queue_id } = await ok(c.url, cluster.owner, "POST", "/register", { event_types: ["typing"] });
    await ok(a.url, member, "POST", "/typing", { op: "start", to: [cluster.owner.user_id] });
    const typing = await collect(cluster.owner, queue_id as string, "typing", 1);
    expect(typing[0]).toMatchObject({ op: "start", sender: { user_id: member.user_id } });
  });

  it("accepts a browser session on every node, forwards its polls, and ends it everywhere at logout", async () => {
    const [a, b, c] = cluster.nodes;
    const password = (cluster.owner as { password?: string }).password!;
    // Sign in on node a: the login page's CSRF cookie and token, then the form.
    const page = await fetch(`${a.url}/login/`);
    const csrfCookie = page.headers.getSetCookie().map((h) => h.split(";")[0]).find((h) => h.startsWith("csrftoken="))!;
    const formToken = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(await page.text())![1];
    const login = await fetch(`${a.url}/accounts/login/`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrfCookie },
      body: new URLSearchParams({ username: cluster.owner.email, password, csrfmiddlewaretoken: formToken }).toString(),
    });
    expect(login.status).toBe(303);
    const cookies = login.headers.getSetCookie().map((h) => h.split(";")[0]);
    const cookie = cookies.join("; ");
    const csrf = cookies.find((h) => h.startsWith("csrftoken="))!.slice("csrftoken=".length);
    const json = (base: string, method: string, path: string, params: Record<string, string> = {}) => {
      const query = method === "GET" || method === "DELETE" ? `?${new URLSearchParams(params)}` : "";
      return fetch(`${base}/json${path}${query}`, {
        method,
        headers: { cookie, "x-csrftoken": csrf, ...(query ? {} : { "content-type": "application/x-www-form-urlencoded" }) },
        body: query ? undefined : new URLSearchParams(params).toString(),
      });
    };
    // A queue on node b, polled and deleted through node c (forwarded with the session's cookie and CSRF token).
    const registered = (await (await json(b.url, "POST", "/register", { event_types: JSON.stringify(["message"]) })).json()) as Body;
    expect(registered.result).toBe("success");
    const poll = (await (await json(c.url, "GET", "/events", { queue_id: registered.queue_id as string, last_event_id: String(registered.last_event_id), dont_block: "true" })).json()) as Body;
    expect(poll.result, JSON.stringify(poll)).toBe("success");
    const deleted = (await (await json(c.url, "DELETE", "/events", { queue_id: registered.queue_id as string })).json()) as Body;
    expect(deleted.result, JSON.stringify(deleted)).toBe("success");
    // Logout on node a; nodes b and c refuse the session on their next request.
    for (const node of [b, c]) expect((await json(node.url, "GET", "/users/me")).status).toBe(200);
    const out = await fetch(`${a.url}/accounts/logout/`, { method: "POST", redirect: "manual", headers: { cookie, "x-csrftoken": csrf } });
    expect(out.status).toBe(303);
    expect((await json(a.url, "GET", "/users/me")).status).toBe(401);
    for (const node of [b, c]) {
      // The deletion reaches the other nodes through Redis within milliseconds; a loaded CI machine may take longer.
      let status = 0;
      for (const deadline = Date.now() + 5000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
        status = (await json(node.url, "GET", "/users/me")).status;
        if (status === 401) break;
      }
      expect(status).toBe(401);
    }
  });

  it("counts password attempts across nodes", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await fetch(`${cluster.proxyUrl}/api/v1/fetch_api_key`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ username: member.email, password: "wrong password" }).toString(),
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
  });

  it("sends a scheduled message once while every node runs its delivery job", async () => {
    const content = `scheduled ${Date.now()}`;
    const at = Math.floor(Date.now() / 1000) + 2;
    await ok(cluster.proxyUrl, member, "POST", "/scheduled_messages", { type: "direct", to: [cluster.owner.user_id], content, scheduled_delivery_timestamp: String(at) });
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      const body = await ok(cluster.proxyUrl, cluster.owner, "GET", "/messages", { anchor: "newest", num_before: "50", num_after: "0", narrow: [{ operator: "dm", operand: [member.user_id] }] });
      const found = (body.messages as Body[]).filter((m) => m.content.includes(content));
      if (found.length > 0 && (await ok(cluster.proxyUrl, member, "GET", "/scheduled_messages")).scheduled_messages.length === 0) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    // Another second for a second delivery, if any node were to make one.
    await new Promise((r) => setTimeout(r, 1000));
    const body = await ok(cluster.proxyUrl, cluster.owner, "GET", "/messages", { anchor: "newest", num_before: "50", num_after: "0", narrow: [{ operator: "dm", operand: [member.user_id] }] });
    expect((body.messages as Body[]).filter((m) => m.content.includes(content))).toHaveLength(1);
  });

  it("refuses a deactivated user on every node", async () => {
    const created = await runCli(["create-user", "--email", "leaving@chat.test", "--full-name", "Leaving", "--json"], cluster.env);
    const leaving = JSON.parse(created.stdout) as Account;
    // Every node caches the user's credentials first.
    for (const node of cluster.nodes) expect((await call(node.url, leaving, "GET", "/users/me")).status).toBe(200);
    await ok(cluster.nodes[0].url, cluster.owner, "DELETE", `/users/${leaving.user_id}`);
    for (const node of cluster.nodes.slice(1)) {
      // The change reaches the other nodes through Redis within milliseconds; a loaded CI machine may take longer.
      let status = 0;
      for (const deadline = Date.now() + 5000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 20))) {
        status = (await call(node.url, leaving, "GET", "/users/me")).status;
        if (status === 401) break;
      }
      expect(status).toBe(401);
    }
  });

  it("serves an uploaded file and a custom emoji through every node, whichever node stored them", async () => {
    const [a, b, c] = cluster.nodes;
    const authorization = `Basic ${Buffer.from(`${member.email}:${member.api_key}`).toString("base64")}`;
    const post = async (base: string, path: string, field: string, name: string, type: string, data: Buffer) => {
      const form = new FormData();
      form.append(field, new Blob([new Uint8Array(data)], { type }), name);
      const res = await fetch(`${base}/api/v1${path}`, { method: "POST", headers: { authorization }, body: form });
      const body = (await res.json()) as Body;
      expect(body.result, JSON.stringify(body)).toBe("success");
      return body;
    };
    const content = crypto.randomBytes(200_000);
    const { url } = await post(a.url, "/user_uploads", "file", "shared.bin", "application/octet-stream", content);
    for (const node of [b, c]) {
      const res = await fetch(`${node.url}${url}`, { headers: { authorization } });
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(content)).toBe(true);
    }
    // A temporary URL made on one node works on the others (through the proxy, any node).
    const temporary = (await ok(b.url, member, "GET", url as string)).url as string;
    for (const node of [a, c]) {
      const res = await fetch(`${node.url}${temporary}`);
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(content)).toBe(true);
    }

    await post(a.url, "/realm/emoji/cluster_wide", "f1", "e.png", "image/png", await pngImage());
    const emoji = Object.values((await ok(b.url, member, "GET", "/realm/emoji")).emoji as Record<string, Body>).find((e) => e.name === "cluster_wide")!;
    for (const node of [b, c]) {
      const res = await fetch(`${node.url}${emoji.source_url}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/png");
    }
    // Not through a shared folder (the nodes of this harness share one): the files are in the database.
    expect(fs.existsSync(path.join(cluster.dataDir, "uploads"))).toBe(false);
  });

  it("reports the queues of a killed node as gone, never as an empty wait", async () => {
    const [a, , c] = cluster.nodes;
    const { queue_id } = await ok(c.url, cluster.owner, "POST", "/register", { event_types: ["message"] });
    await stopProcess(c.process, "SIGKILL");
    const res = await call(a.url, cluster.owner, "GET", "/events", { queue_id, last_event_id: "-1" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "BAD_EVENT_QUEUE_ID", queue_id });
    // The surviving nodes carry on.
    await ok(a.url, member, "POST", "/messages", { type: "direct", to: [cluster.owner.user_id], content: "after the kill" });
  });
});

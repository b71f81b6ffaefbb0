#!/usr/bin/env node
/**
 * `npm run screenshot`: docs/screenshot.png, the web app's main view. Starts the built server
 * (dist/, after `npm run build`) on a temporary database, fills a small organization through
 * the CLI and the API, signs in through the login page in headless Chromium (Debian's
 * /usr/bin/chromium, or PARLEY_CHROMIUM) and captures the page. Leaves nothing behind.
 */
/* global fetch, setTimeout, Buffer, URLSearchParams */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cli = path.join(root, "dist", "src", "cli.js");
const out = path.join(root, "docs", "screenshot.png");
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "parley-screenshot-"));
const port = await new Promise((resolve) => {
  const srv = net.createServer().listen(0, "127.0.0.1", () => {
    const { port: p } = srv.address();
    srv.close(() => resolve(p));
  });
});
const env = { ...process.env, PARLEY_DATA_DIR: dataDir, PORT: String(port), PARLEY_EXTERNAL_HOST: `127.0.0.1:${port}`, PARLEY_RATE_LIMIT_PER_MINUTE: "0", LOG_LEVEL: "warn" };
delete env.DATABASE_URL;
const url = `http://127.0.0.1:${port}`;

const run = (args) => JSON.parse(execFileSync(process.execPath, [cli, ...args, "--json"], { env, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }));
const people = [
  ["ada@acme.test", "Ada Lovelace"],
  ["grace@acme.test", "Grace Hopper"],
  ["alan@acme.test", "Alan Turing"],
  ["katherine@acme.test", "Katherine Johnson"],
];
const password = "screenshot-pass-1";
const keys = {};
keys[people[0][0]] = run(["create-realm", "--name", "Acme Research", "--owner-email", people[0][0], "--owner-name", people[0][1], "--password", password]).api_key;
for (const [email, name] of people.slice(1)) keys[email] = run(["create-user", "--email", email, "--full-name", name, "--password", password]).api_key;

const server = spawn(process.execPath, [cli, "serve"], { env, stdio: "ignore" });
try {
  for (let i = 0; !(await fetch(`${url}/api/v1/server_settings`).then((r) => r.ok, () => false)); i++) {
    if (i > 200) throw new Error("the server did not start");
    await new Promise((r) => setTimeout(r, 100));
  }
  const api = async (email, method, p, params) => {
    const res = await fetch(`${url}/api/v1${p}`, { method, headers: { authorization: `Basic ${Buffer.from(`${email}:${keys[email]}`).toString("base64")}` }, body: new URLSearchParams(params) });
    const body = await res.json();
    if (body.result !== "success") throw new Error(`${method} ${p}: ${body.msg}`);
    return body;
  };
  const [ada, grace, alan, katherine] = people.map((p) => p[0]);
  for (const who of [ada, grace, alan, katherine]) await api(who, "POST", "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "engineering" }, { name: "design" }]) });
  const say = (who, to, topic, content) => api(who, "POST", "/messages", { type: "stream", to, topic, content });
  await say(grace, "engineering", "compiler release", "The new compiler passes every test on the **nightly** build. :tada:");
  await say(alan, "engineering", "compiler release", "Great work! Shall we tag `v2.0` on Friday?");
  const last = await say(ada, "engineering", "compiler release", "Yes, Friday works. I'll write the release notes:\n- faster builds\n- clearer errors\n- a new optimizer");
  await api(grace, "POST", `/messages/${last.id}/reactions`, { emoji_name: "+1" });
  await api(alan, "POST", `/messages/${last.id}/reactions`, { emoji_name: "+1" });
  await api(katherine, "POST", `/messages/${last.id}/reactions`, { emoji_name: "rocket" });
  await say(katherine, "engineering", "trajectory checks", "I re-ran the numbers by hand; they match the machine to the last digit.");
  await say(grace, "design", "new logo", "Here are three sketches for the new logo.");
  await say(alan, "general", "welcome", "Welcome to Acme Research, everyone!");
  await api(katherine, "POST", "/messages", { type: "direct", to: JSON.stringify([ada]), content: "Do you have a minute to review my notes?" });
  await api(grace, "POST", "/users/me/status", { status_text: "Debugging", emoji_name: "bug" });
  await api(alan, "POST", "/users/me/status", { status_text: "In a meeting" });
  for (const who of [grace, alan]) await api(who, "POST", "/users/me/presence", { status: "active", slim_presence: "true" });

  const browser = await chromium.launch({ executablePath: process.env.PARLEY_CHROMIUM || "/usr/bin/chromium", args: ["--no-sandbox"] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 760 }, deviceScaleFactor: 1, colorScheme: "light" });
    await page.goto(`${url}/login/`);
    await page.getByLabel(/email/i).fill(ada);
    await page.getByLabel(/password/i).fill(password);
    await page.getByLabel(/password/i).press("Enter");
    await page.waitForURL((u) => u.pathname === "/");
    await page.getByRole("navigation").getByRole("link", { name: /^# engineering/ }).click();
    await page.getByRole("navigation").getByRole("link", { name: /^compiler release/ }).click();
    await page.getByText("a new optimizer").waitFor();
    await page.getByRole("textbox", { name: /^Message/ }).fill("Thanks all, tagging on Friday.");
    await page.mouse.move(0, 0);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    await page.screenshot({ path: out });
    process.stderr.write(`parley: wrote ${path.relative(process.cwd(), out)}\n`);
  } finally {
    await browser.close();
  }
} finally {
  server.kill("SIGTERM");
  await new Promise((r) => server.once("exit", r));
  fs.rmSync(dataDir, { recursive: true, force: true });
}

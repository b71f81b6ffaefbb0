/**
 * The web app in a real browser (headless Chromium), against a real server process: two
 * people in two browser contexts sign in and chat. One server and one browser for the
 * file; the steps run in order and build on each other.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { E2E_SKIPPED, apiAs, openBrowser, signIn, signInToApp, startWorld, type E2eWorld, type Session } from "./support.js";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 240_000 });

let world: E2eWorld;
let ada: Session;
let bo: Session;

const composeBox = (p: Page) => p.getByRole("textbox", { name: /^Message/ });
const topicField = (p: Page) => p.getByRole("textbox", { name: "Topic", exact: true });
const message = (p: Page, text: string) => p.getByRole("article").filter({ hasText: text });

const sidebarLink = (p: Page, name: string | RegExp) => p.getByRole("navigation").getByRole("link", { name });

/** Sends from the compose box and waits for the message (its rendered text: `shown`) to arrive. */
async function send(p: Page, markdown: string, shown = markdown): Promise<void> {
  await composeBox(p).fill(markdown);
  await composeBox(p).press("Enter");
  await message(p, shown).waitFor();
}

describe.skipIf(E2E_SKIPPED)("web client", () => {
  beforeAll(async () => {
    world = await startWorld();
    ada = await openBrowser(world);
    bo = await openBrowser(world);
  });
  afterAll(async () => {
    await world?.close();
  });

  it("refuses a wrong password with upstream's message, keeping the email", async () => {
    await signIn(bo.page, world.bo.email, "not-the-password");
    const alert = bo.page.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toContain("Please enter a correct email and password");
    expect(new URL(bo.page.url()).pathname).toBe("/accounts/login/");
    expect(await bo.page.getByLabel(/email/i).inputValue()).toBe(world.bo.email);
    expect(await bo.page.getByLabel(/password/i).inputValue()).toBe("");
  });

  it("signs both people in; a message from one appears live for the other, and reactions go both ways", async () => {
    await bo.page.goto("/");
    await signInToApp(ada.page, world.ada);
    await signInToApp(bo.page, world.bo);
    await topicField(ada.page).fill("greetings");
    await send(ada.page, "Hello **Bo**, welcome!", "Hello Bo, welcome!");
    // Rendered by the server: the bold text is a <strong>.
    const seen = message(bo.page, "Hello Bo, welcome!");
    await seen.waitFor();
    expect(await seen.locator("strong").textContent()).toBe("Bo");

    await seen.hover();
    await seen.getByRole("button", { name: "Add reaction" }).click();
    await bo.page.getByRole("dialog", { name: "Add a reaction" }).getByRole("button", { name: "tada", exact: true }).click();
    await message(ada.page, "Hello Bo, welcome!").getByRole("button", { name: /^tada: 1, Bo Member/ }).waitFor();
    // Bo's own reaction is pressed; pressing it again takes it back, for Ada too.
    const chip = seen.getByRole("button", { name: /^tada: 1/ });
    expect(await chip.getAttribute("aria-pressed")).toBe("true");
    await chip.click();
    await message(ada.page, "Hello Bo, welcome!").getByRole("button", { name: /^tada/ }).waitFor({ state: "detached" });
    await seen.hover();
    await seen.getByRole("button", { name: "Add reaction" }).click();
    await bo.page.getByRole("dialog", { name: "Add a reaction" }).getByRole("button", { name: "tada", exact: true }).click();
    await message(ada.page, "Hello Bo, welcome!").getByRole("button", { name: /^tada: 1, Bo Member/ }).waitFor();
  });

  it("picks emoji from the server's emoji data by search, and Escape closes the picker", async () => {
    const mine = message(ada.page, "Hello Bo, welcome!");
    await mine.hover();
    await mine.getByRole("button", { name: "Add reaction" }).click();
    const picker = ada.page.getByRole("dialog", { name: "Add a reaction" });
    await picker.getByLabel("Search emoji").fill("rocket");
    await picker.getByRole("button", { name: "rocket", exact: true }).click();
    await message(bo.page, "Hello Bo, welcome!").getByRole("button", { name: /^rocket: 1, Ada Boss/ }).waitFor();

    await mine.getByRole("button", { name: "Add reaction" }).click();
    await picker.waitFor();
    await ada.page.keyboard.press("Escape");
    await picker.waitFor({ state: "detached" });
    // Focus returns to the button that opened it.
    expect(await ada.page.evaluate(() => document.activeElement?.textContent)).toBe("Add reaction");
  });

  it("shows a typing notice to the other person", async () => {
    await sidebarLink(bo.page, /^greetings/).click();
    await composeBox(bo.page).pressSequentially("I am wri");
    await ada.page.getByText("Bo Member is typing…").waitFor();
    await composeBox(bo.page).fill("");
  });

  it("edits and deletes one's own message, live for the other person", async () => {
    await send(ada.page, "A message with a tpyo");
    await message(bo.page, "A message with a tpyo").waitFor();
    const mine = message(ada.page, "A message with a tpyo");
    await mine.hover();
    await mine.getByRole("button", { name: "Edit" }).click();
    const editor = ada.page.getByRole("textbox", { name: "Edit message" });
    await expect.poll(() => editor.inputValue(), { timeout: 15_000 }).toBe("A message with a tpyo");
    await editor.fill("A message without a typo");
    await ada.page.getByRole("button", { name: "Save" }).click();
    await message(bo.page, "A message without a typo").getByText("(edited)").waitFor();

    const edited = message(ada.page, "A message without a typo");
    await edited.hover();
    await edited.getByRole("button", { name: "Delete" }).click();
    await ada.page.getByRole("dialog", { name: "Delete message" }).getByRole("button", { name: "Delete message" }).click();
    await message(bo.page, "A message without a typo").waitFor({ state: "detached" });
    await message(ada.page, "A message without a typo").waitFor({ state: "detached" });
  });

  it("sends a direct message that the other person sees as unread, then reads", async () => {
    await ada.page.getByRole("list", { name: "People" }).getByRole("link", { name: /Bo Member/ }).click();
    await ada.page.getByRole("heading", { name: "Direct messages with Bo Member" }).waitFor();
    await send(ada.page, "Just between us");
    const link = bo.page.getByRole("list", { name: "Direct messages" }).getByRole("link", { name: /Ada Boss/ });
    await link.getByLabel("1 unread").waitFor();
    expect(await bo.page.title()).toMatch(/^\(\d+\) Acme$/);
    await link.click();
    await message(bo.page, "Just between us").waitFor();
    // Viewed: marked read, so the count goes.
    await link.getByLabel("1 unread").waitFor({ state: "detached" });
    // Typing in a conversation shows there, the other way round this time.
    await composeBox(ada.page).pressSequentially("Also");
    await bo.page.getByText("Ada Boss is typing…").waitFor();
    await composeBox(ada.page).fill("");
  });

  it("registers a new event queue when the server has dropped the old one", async () => {
    let dropped = false;
    // The poll after the one now waiting is answered as if the server had dropped the queue.
    await bo.page.route("**/json/events?*", async (route) => {
      if (dropped) return route.continue();
      dropped = true;
      await route.fulfill({ status: 400, contentType: "application/json", body: JSON.stringify({ result: "error", msg: "Bad event queue ID: gone", code: "BAD_EVENT_QUEUE_ID", queue_id: "gone" }) });
    });
    const registered = bo.page.waitForRequest((r) => r.method() === "POST" && new URL(r.url()).pathname === "/json/register");
    await send(ada.page, "Before the queue went");
    await message(bo.page, "Before the queue went").waitFor();
    await registered;
    await bo.page.unroute("**/json/events?*");
    await send(ada.page, "After a new queue");
    await message(bo.page, "After a new queue").waitFor();
  });

  it("keeps polling after network errors", async () => {
    let failures = 0;
    await bo.page.route("**/json/events?*", (route) => (failures++ < 2 ? route.abort("connectionreset") : route.continue()));
    await send(ada.page, "Through a flaky network");
    await message(bo.page, "Through a flaky network").waitFor();
    await send(ada.page, "And the next one");
    await message(bo.page, "And the next one").waitFor({ timeout: 30_000 });
    expect(failures).toBeGreaterThanOrEqual(2);
    await bo.page.unroute("**/json/events?*");
  });

  it("loads older messages when scrolled to the top", async () => {
    const general = (await apiAs(world, world.ada, "GET", "/users/me/subscriptions", {})).subscriptions.find((s: { name: string }) => s.name === "general");
    for (let i = 1; i <= 60; i++) await apiAs(world, world.ada, "POST", "/messages", { type: "stream", to: String(general.stream_id), topic: "history", content: `history line ${i}` });
    await sidebarLink(bo.page, /^# general/).click();
    await sidebarLink(bo.page, /^history/).click();
    const line = (n: number) => bo.page.getByRole("log", { name: "Messages" }).getByText(`history line ${n}`, { exact: true });
    await line(60).waitFor();
    expect(await line(1).count()).toBe(0);
    await bo.page.getByRole("log", { name: "Messages" }).evaluate((el) => (el.scrollTop = 0));
    await line(1).waitFor();
    await bo.page.getByText("This is the start of the conversation.").waitFor();
  });

  it("mutes and follows a topic", async () => {
    await sidebarLink(bo.page, /^# general/).click();
    await sidebarLink(bo.page, /^greetings/).click();
    const select = bo.page.getByLabel("Topic notifications");
    await select.selectOption({ label: "Muted" });
    await sidebarLink(bo.page, "greetings (muted)").waitFor();
    await select.selectOption({ label: "Followed" });
    await sidebarLink(bo.page, "greetings (followed)").waitFor();
  });

  it("sets a status that the other person sees", async () => {
    await bo.page.getByRole("button", { name: "Settings" }).click();
    const dialog = bo.page.getByRole("dialog", { name: "Settings" });
    await dialog.getByLabel("Status text").fill("In a meeting");
    await dialog.getByRole("button", { name: "Save status" }).click();
    await dialog.getByText("Status saved.").waitFor();
    await bo.page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    const boInList = ada.page.getByRole("list", { name: "People" }).getByRole("link", { name: /Bo Member/ });
    await boInList.getByText("In a meeting").waitFor();
    // Bo's page reports presence: a green dot for Ada.
    await boInList.getByRole("img", { name: "Active" }).waitFor();
  });

  it("works from the keyboard: skip link, Enter to send, a modal dialog that keeps Tab inside and closes on Escape", async () => {
    const p = ada.page;
    const focused = () => p.evaluate(() => [document.activeElement?.id || "", document.activeElement?.textContent ?? ""]);
    await p.reload();
    await p.getByRole("navigation", { name: "Channels and conversations" }).waitFor();
    await p.keyboard.press("Tab");
    expect(await focused()).toEqual(["", "Skip to the compose box"]);
    await p.keyboard.press("Enter");
    expect((await focused())[0]).toBe("compose-box");
    await p.keyboard.type("Typed without a mouse");
    await p.keyboard.press("Enter");
    await message(p, "Typed without a mouse").waitFor();

    await p.getByRole("button", { name: "Settings" }).focus();
    await p.keyboard.press("Enter");
    const dialog = p.getByRole("dialog", { name: "Settings" });
    await dialog.waitFor();
    // The dialog moves focus to its first field once it has opened.
    await expect.poll(() => dialog.getByLabel("Status text").evaluate((el) => el === document.activeElement), { timeout: 15_000 }).toBe(true);
    await p.keyboard.press("Shift+Tab");
    expect(await focused()).toEqual(["", "Close"]);
    await p.keyboard.press("Tab");
    expect(await dialog.getByLabel("Status text").evaluate((el) => el === document.activeElement)).toBe(true);
    await p.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect(await focused()).toEqual(["", "Settings"]);
  });

  it("uploads a file into a message", async () => {
    // Ada is in the conversation with Bo since the direct-message step.
    await bo.page.getByRole("list", { name: "Direct messages" }).getByRole("link", { name: /Ada Boss/ }).click();
    const file = path.join(os.tmpdir(), `parley-e2e-${process.pid}.txt`);
    fs.writeFileSync(file, "notes for the team\n");
    try {
      await ada.page.getByLabel("File to attach").setInputFiles(file);
      await ada.page.getByText(`Uploaded ${path.basename(file)}`).waitFor();
      const text = await composeBox(ada.page).inputValue();
      expect(text).toMatch(new RegExp(`^\\[${path.basename(file).replace(/\./g, "\\.")}\\]\\(/user_uploads/\\d+/[^)]+\\)$`));
      await composeBox(ada.page).press("Enter");
      const link = message(bo.page, path.basename(file)).getByRole("link", { name: path.basename(file) });
      await link.waitFor();
      // The link opens the file with the session's cookie.
      const href = (await link.getAttribute("href"))!;
      const res = await bo.page.request.get(href);
      expect(res.status()).toBe(200);
      expect(await res.text()).toBe("notes for the team\n");
    } finally {
      fs.rmSync(file, { force: true });
    }
  });

  it("previews Markdown, then schedules the message for later", async () => {
    await composeBox(ada.page).fill("Scheduled *hello*");
    await ada.page.getByRole("button", { name: "Preview" }).click();
    const preview = ada.page.getByRole("region", { name: "Preview" });
    await preview.locator("em").getByText("hello").waitFor();
    await ada.page.getByRole("button", { name: "Write" }).click();
    await ada.page.getByRole("button", { name: "Schedule" }).click();
    await ada.page.getByRole("dialog", { name: "Schedule message" }).getByRole("button", { name: "Schedule message" }).click();
    await ada.page.getByText(/^Message scheduled for/).waitFor();
    expect(await composeBox(ada.page).inputValue()).toBe("");
    const scheduled = ada.page.getByRole("list", { name: "Scheduled messages" });
    await scheduled.getByText(/Scheduled \*hello\*/).waitFor();
    await scheduled.getByRole("button", { name: /^Cancel scheduled message/ }).click();
    await scheduled.waitFor({ state: "detached" });
  });

  it("sets a reminder on a message", async () => {
    await sidebarLink(ada.page, /^# general/).click();
    await sidebarLink(ada.page, /^greetings/).click();
    const m = message(ada.page, "Hello Bo, welcome!");
    await m.hover();
    await m.getByRole("button", { name: "Remind me" }).click();
    const dialog = ada.page.getByRole("dialog", { name: "Set a reminder" });
    await dialog.getByLabel("Note (optional)").fill("follow up");
    await dialog.getByRole("button", { name: "Set reminder" }).click();
    await ada.page.getByText(/^Reminder set for/).waitFor();
    await ada.page.getByRole("list", { name: "Reminders" }).getByRole("listitem").first().waitFor();
  });

  it("saves a draft as you type, which survives a reload", async () => {
    await sidebarLink(ada.page, /^greetings/).click();
    await composeBox(ada.page).fill("An unfinished thought");
    await ada.page.getByText("Draft saved").waitFor();
    await ada.page.reload();
    await expect.poll(() => composeBox(ada.page).inputValue(), { timeout: 15_000 }).toBe("An unfinished thought");
    // Sending it removes the draft: after another reload the box is empty.
    await composeBox(ada.page).press("Enter");
    await message(ada.page, "An unfinished thought").waitFor();
    await ada.page.reload();
    await message(ada.page, "An unfinished thought").waitFor();
    expect(await composeBox(ada.page).inputValue()).toBe("");
  });

  it("opens the sidebar from a menu button on a narrow screen", async () => {
    const p = ada.page;
    await p.setViewportSize({ width: 480, height: 800 });
    try {
      const nav = p.getByRole("navigation", { name: "Channels and conversations" });
      await nav.waitFor({ state: "hidden" });
      const menu = p.getByRole("button", { name: "Menu" });
      await menu.click();
      expect(await menu.getAttribute("aria-expanded")).toBe("true");
      await nav.getByRole("link", { name: /^# general/ }).click();
      await nav.waitFor({ state: "hidden" });
      await p.getByRole("heading", { name: "#general", exact: true }).waitFor();
    } finally {
      await p.setViewportSize({ width: 1200, height: 800 });
    }
  });

  it("changes the password, logs out, and signs in with the new one", async () => {
    await bo.page.getByRole("button", { name: "Settings" }).click();
    const dialog = bo.page.getByRole("dialog", { name: "Settings" });
    await dialog.getByLabel("Current password").fill(world.bo.password);
    await dialog.getByLabel("New password").fill("a-brand-new-pass-phrase");
    await dialog.getByRole("button", { name: "Change password" }).click();
    await dialog.getByText("Password changed.").waitFor();
    await dialog.getByRole("button", { name: "Close" }).click();

    await bo.page.getByRole("button", { name: "Log out" }).click();
    await bo.page.waitForURL(/\/login\//);
    expect((await bo.context.cookies()).some((c) => c.name === "sessionid")).toBe(false);
    // The app is not reachable any more without signing in again.
    await bo.page.goto("/");
    await signInToApp(bo.page, { ...world.bo, password: "a-brand-new-pass-phrase" });
  });

  it("signs a new person up through a reusable invitation link, straight into the app", async () => {
    const { invite_link } = await apiAs(world, world.ada, "POST", "/invites/multiuse", { invite_expires_in_minutes: "60", stream_ids: "[]", include_realm_default_subscriptions: "true" });
    const cy = await openBrowser(world);
    try {
      await cy.page.goto(new URL(invite_link as string).pathname);
      await cy.page.getByLabel("Email").fill("cy@acme.test");
      await cy.page.getByLabel("Full name").fill("Cy Newcomer");
      await cy.page.getByLabel("Password").fill("cy-pass-phrase-1");
      await cy.page.getByRole("button", { name: "Create account" }).click();
      await cy.page.waitForURL((u) => u.pathname === "/");
      await cy.page.getByRole("navigation", { name: "Channels and conversations" }).waitFor();
      await send(cy.page, "Hello, I just joined");
      await sidebarLink(ada.page, /^# general/).click();
      await message(ada.page, "Hello, I just joined").waitFor();
      expect(cy.errors).toEqual([]);
    } finally {
      await cy.context.close();
    }
  });

  it("ran without script errors", () => {
    expect(ada.errors).toEqual([]);
    expect(bo.errors).toEqual([]);
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";
import { expectError, expectSuccess } from "../support/client.js";
import type { PublishedEvent } from "../../src/events/publisher.js";

let s: TestServer;
let events: PublishedEvent[] = [];
beforeAll(async () => {
  s = await startTestServer();
  s.ctx.events.subscribe((e) => events.push(e));
});
afterAll(() => s.close());
beforeEach(() => {
  events = [];
});

const rows = () => s.db.selectFrom("navigation_views").select(["realm_id", "user_id", "fragment", "is_pinned", "name"]).orderBy("id").execute();
const NOT_FOUND = "Navigation view does not exist.";
const views = (e: PublishedEvent[]) => e.filter((x) => x.event.type === "navigation_view");

describe("navigation views", () => {
  it("starts empty, adds built-in overrides and custom views, each event to the user only", async () => {
    const u = s.realm.member;
    expect(expectSuccess(await s.api.get(u, "/navigation_views"))).toEqual({ result: "success", msg: "", navigation_views: [] });
    expect(expectSuccess(await s.api.post(u, "/navigation_views", { fragment: " inbox ", is_pinned: false }))).toEqual({ result: "success", msg: "" });
    expectSuccess(await s.api.post(u, "/navigation_views", { fragment: "narrow/channel/9-design/topic/plans", is_pinned: true, name: " Design plans " }));
    expect(views(events).map((e) => [e.event, e.userIds])).toEqual([
      [{ type: "navigation_view", op: "add", navigation_view: { fragment: "inbox", is_pinned: false, name: null } }, [u.id]],
      [{ type: "navigation_view", op: "add", navigation_view: { fragment: "narrow/channel/9-design/topic/plans", is_pinned: true, name: "Design plans" } }, [u.id]],
    ]);
    expect(expectSuccess(await s.api.get(u, "/navigation_views")).navigation_views).toEqual([
      { fragment: "inbox", is_pinned: false, name: null },
      { fragment: "narrow/channel/9-design/topic/plans", is_pinned: true, name: "Design plans" },
    ]);
    // As upstream, the list reports no ignored parameters; the parsed endpoints do.
    expectSuccess(await s.api.get(u, "/navigation_views", { extra: 1 }));
    const ignored = (await s.api.post(u, "/navigation_views", { fragment: "drafts", is_pinned: true, color: "red" })).json();
    expect(ignored).toEqual({ result: "success", msg: "", ignored_parameters_unsupported: ["color"] });
    expectSuccess(await s.api.delete(u, "/navigation_views/drafts"));
    events = [];
    // Another user has their own list.
    expect(expectSuccess(await s.api.get(s.realm.other, "/navigation_views")).navigation_views).toEqual([]);
  });

  it("refuses bad additions with upstream's messages and changes nothing", async () => {
    const u = s.realm.member;
    const before = await rows();
    const post = (params: Record<string, unknown>) => s.api.post(u, "/navigation_views", params);
    expectError(await post({ is_pinned: true }), "Missing 'fragment' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await post({ fragment: "  ", is_pinned: true }), "fragment cannot be blank");
    expectError(await post({ fragment: "x" }), "Missing 'is_pinned' argument", { code: "REQUEST_VARIABLE_MISSING" });
    expectError(await post({ fragment: "x", is_pinned: "yes" }), "is_pinned is not valid JSON");
    expectError(await post({ fragment: "x", is_pinned: 1 }), "is_pinned is not a boolean");
    expectError(await post({ fragment: "x", is_pinned: true, name: " " }), "name cannot be blank");
    expectError(await post({ fragment: "recent", is_pinned: true, name: "Recent" }), "Built-in views cannot have a custom name.");
    expectError(await post({ fragment: "narrow/is/private", is_pinned: true }), "Custom views must have a valid name.");
    expectError(await post({ fragment: "inbox", is_pinned: true }), "Navigation view already exists.");
    expectError(await post({ fragment: "narrow/is/dm", is_pinned: true, name: "Design plans" }), "Navigation view already exists.");
    expect(await rows()).toEqual(before);
    expect(views(events)).toEqual([]);
  });

  it("updates by fragment (slashes included): name and is_pinned, only the changed keys in the event", async () => {
    const u = s.realm.member;
    expectSuccess(await s.api.patch(u, "/navigation_views/narrow/channel/9-design/topic/plans", { name: "Plans" }));
    expectSuccess(await s.api.patch(u, "/navigation_views/inbox", { is_pinned: true }));
    expectSuccess(await s.api.patch(u, "/navigation_views/narrow/channel/9-design/topic/plans", {}));
    expect(views(events).map((e) => [e.event, e.userIds])).toEqual([
      [{ type: "navigation_view", op: "update", fragment: "narrow/channel/9-design/topic/plans", data: { name: "Plans" } }, [u.id]],
      [{ type: "navigation_view", op: "update", fragment: "inbox", data: { is_pinned: true } }, [u.id]],
      [{ type: "navigation_view", op: "update", fragment: "narrow/channel/9-design/topic/plans", data: {} }, [u.id]],
    ]);
    expect(expectSuccess(await s.api.get(u, "/navigation_views")).navigation_views).toEqual([
      { fragment: "inbox", is_pinned: true, name: null },
      { fragment: "narrow/channel/9-design/topic/plans", is_pinned: true, name: "Plans" },
    ]);
  });

  it("checks built-in names before existence, then duplicate names, then existence (404 NOT_FOUND)", async () => {
    const u = s.realm.member;
    const before = await rows();
    expectError(await s.api.patch(u, "/navigation_views/feed", { name: "Feed" }), "Built-in views cannot have a custom name.");
    expectError(await s.api.patch(u, "/navigation_views/narrow/is/starred", { name: "Stars" }), "Built-in views cannot have a custom name.");
    expectError(await s.api.patch(u, "/navigation_views/narrow/channel/9-design/topic/plans", { name: "Plans" }), "Navigation view already exists.");
    expectError(await s.api.patch(u, "/navigation_views/narrow/nowhere", { name: "Plans" }), "Navigation view already exists.");
    expectError(await s.api.patch(u, "/navigation_views/narrow/nowhere", { is_pinned: false }), NOT_FOUND, { status: 404, code: "NOT_FOUND" });
    expectError(await s.api.patch(u, "/navigation_views/recent", { is_pinned: false }), NOT_FOUND, { status: 404, code: "NOT_FOUND" });
    expectError(await s.api.patch(u, "/navigation_views/inbox", { is_pinned: "no" }), "is_pinned is not valid JSON");
    // Another user's view does not exist for them.
    expectError(await s.api.patch(s.realm.other, "/navigation_views/inbox", { is_pinned: false }), NOT_FOUND, { status: 404, code: "NOT_FOUND" });
    expectError(await s.api.patch(s.other.member, "/navigation_views/inbox", { is_pinned: false }), NOT_FOUND, { status: 404, code: "NOT_FOUND" });
    expect(await rows()).toEqual(before);
    expect(views(events)).toEqual([]);
  });

  it("removes views, built-in overrides included", async () => {
    const u = s.realm.member;
    expectError(await s.api.delete(s.realm.other, "/navigation_views/inbox"), NOT_FOUND, { status: 404, code: "NOT_FOUND" });
    expectSuccess(await s.api.delete(u, "/navigation_views/inbox"));
    expectSuccess(await s.api.delete(u, "/navigation_views/narrow/channel/9-design/topic/plans"));
    expect(views(events).map((e) => e.event)).toEqual([
      { type: "navigation_view", op: "remove", fragment: "inbox" },
      { type: "navigation_view", op: "remove", fragment: "narrow/channel/9-design/topic/plans" },
    ]);
    expectError(await s.api.delete(u, "/navigation_views/inbox"), NOT_FOUND, { status: 404, code: "NOT_FOUND" });
    expect((await rows()).filter((r) => r.user_id === u.id)).toEqual([]);
  });
});

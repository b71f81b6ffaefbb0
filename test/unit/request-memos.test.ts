/**
 * Values every request derives from its headers, remembered from the request before
 * (realm-host.ts, user-agent.ts, auth.ts): alternating inputs still get each its own answer.
 */
import { expect, it } from "vitest";
import { subdomainFromHost } from "../../src/lib/realm-host.js";
import { userAgentProduct } from "../../src/lib/user-agent.js";
import { parseBasicAuth } from "../../src/http/auth.js";

it("subdomainFromHost answers each host and external host, whatever came before", () => {
  const cases: Array<[string | undefined, string, string]> = [
    ["chat.example.test:9991", "example.test:9991", "chat"],
    ["example.test:9991", "example.test:9991", ""],
    ["CHAT.Example.Test", "example.test:9991", "chat"],
    ["other.example.test:9991", "example.test:9991", "other"],
    ["chat.example.test:9991", "elsewhere.test", ""],
    [undefined, "example.test:9991", ""],
    ["127.0.0.1:9991", "example.test:9991", ""],
  ];
  // Twice through, and each case twice in a row (the remembered answer, then a new one).
  for (let round = 0; round < 2; round++) {
    for (const [host, base, subdomain] of cases) {
      expect(subdomainFromHost(host, base)).toBe(subdomain);
      expect(subdomainFromHost(host, base)).toBe(subdomain);
    }
  }
});

it("userAgentProduct answers each User-Agent, whatever came before", () => {
  const cases: Array<[string | undefined, string]> = [
    ["ParleyMobile/27.1 (Android 14)", "ParleyMobile"],
    ["curl/8.5.0", "curl"],
    ["python-requests 2.31", "python-requests"],
    [undefined, ""],
    ["", ""],
    ["ParleyInvalid", "ParleyInvalid"],
  ];
  for (let round = 0; round < 2; round++) {
    for (const [ua, product] of cases) {
      expect(userAgentProduct(ua)).toBe(product);
      expect(userAgentProduct(ua)).toBe(product);
    }
  }
});

it("parseBasicAuth answers each header, whatever came before, and refuses bad ones every time", () => {
  const header = (email: string, key: string) => `Basic ${Buffer.from(`${email}:${key}`).toString("base64")}`;
  const a = header("a@example.test", "A".repeat(32));
  const b = header("b@example.test", "b".repeat(32));
  for (let round = 0; round < 2; round++) {
    expect(parseBasicAuth(a)).toEqual({ email: "a@example.test", apiKey: "A".repeat(32) });
    expect(parseBasicAuth(a)).toEqual({ email: "a@example.test", apiKey: "A".repeat(32) });
    expect(parseBasicAuth(b)).toEqual({ email: "b@example.test", apiKey: "b".repeat(32) });
    expect(() => parseBasicAuth("Bearer xyz")).toThrow("This endpoint requires HTTP basic authentication.");
    expect(() => parseBasicAuth("Bearer xyz")).toThrow("This endpoint requires HTTP basic authentication.");
    expect(() => parseBasicAuth("Basic !!!")).toThrow("Invalid authorization header for basic auth");
    expect(parseBasicAuth(undefined)).toBeUndefined();
  }
  // The answer is shared with the next request sending the same header: it cannot be changed.
  expect(Object.isFrozen(parseBasicAuth(a))).toBe(true);
});

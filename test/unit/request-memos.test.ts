/**
 * Values every request derives from its headers, remembered from the request before
 * (realm-host.ts, user-agent.ts): alternating inputs still get each its own answer.
 */
import { expect, it } from "vitest";
import { subdomainFromHost } from "../../src/lib/realm-host.js";
import { userAgentProduct } from "../../src/lib/user-agent.js";

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

import { describe, expect, it } from "vitest";
import { acceptsGzip } from "../../src/http/gzip-bodies.js";

describe("acceptsGzip", () => {
  it("reads Accept-Encoding with its q-values", () => {
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip("")).toBe(false);
    expect(acceptsGzip("gzip, deflate, br")).toBe(true);
    expect(acceptsGzip("GZIP")).toBe(true);
    expect(acceptsGzip("x-gzip")).toBe(true);
    expect(acceptsGzip("br;q=1.0, gzip;q=0.8")).toBe(true);
    expect(acceptsGzip("gzip;q=0")).toBe(false);
    expect(acceptsGzip("gzip; q=0.000")).toBe(false);
    expect(acceptsGzip("deflate, br, identity")).toBe(false);
    expect(acceptsGzip("*")).toBe(true);
    expect(acceptsGzip("*;q=0")).toBe(false);
    expect(acceptsGzip("*;q=0, gzip")).toBe(true);
    expect(acceptsGzip("gzip;q=0, *")).toBe(false);
  });
});

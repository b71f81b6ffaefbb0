/**
 * Expensive requests take turns in arrival order, one per turn of the event loop
 * (src/http/fair-turns.ts): one that arrives (through the poll phase, as a request does)
 * while others wait queues behind them instead of running before the later ones.
 */
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { fairTurn } from "../../src/http/fair-turns.js";

let cleanup: Array<() => void> = [];
afterEach(() => {
  for (const f of cleanup) f();
  cleanup = [];
});

/** A connected socket pair on the loopback: what one end writes arrives at the other in a later poll. */
async function socketPair(): Promise<{ client: net.Socket; server: net.Socket }> {
  const listener = net.createServer();
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const accepted = new Promise<net.Socket>((resolve) => listener.once("connection", resolve));
  const client = net.connect((listener.address() as net.AddressInfo).port, "127.0.0.1");
  await new Promise<void>((resolve) => client.once("connect", resolve));
  const server = await accepted;
  cleanup.push(() => {
    client.destroy();
    server.destroy();
    listener.close();
  });
  return { client, server };
}

describe("fair turns", () => {
  it("gives turns in the order they were asked for", async () => {
    const order: number[] = [];
    await Promise.all([1, 2, 3, 4].map((n) => fairTurn().then(() => order.push(n))));
    expect(order).toEqual([1, 2, 3, 4]);
  });

  it("lets the loop poll between two turns, and a request read then waits behind those already waiting", async () => {
    const { client, server } = await socketPair();
    const log: string[] = [];
    let arrived!: Promise<void>;
    server.once("data", () => {
      log.push("read");
      arrived = fairTurn().then(() => void log.push("late"));
    });
    const first = fairTurn().then(() => {
      log.push("a");
      // A request arrives while b and c wait: it is read before b's turn, and runs after c.
      client.write("x");
    });
    const second = fairTurn().then(() => void log.push("b"));
    const third = fairTurn().then(() => void log.push("c"));
    await Promise.all([first, second, third]);
    await arrived;
    expect(log).toEqual(["a", "read", "b", "c", "late"]);
  });

  it("gives the next turn in the next turn of the loop once the queue has emptied", async () => {
    await fairTurn();
    const turn = fairTurn().then(() => "turn");
    const twoLoops = new Promise((resolve) => setImmediate(() => setImmediate(() => resolve("two turns of the loop"))));
    expect(await Promise.race([turn, twoLoops])).toBe("turn");
  });
});

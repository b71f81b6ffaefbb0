/** push_devices (event type "push_device"): push account id → registration status. */
import { listPushDevices } from "../../db/queries/push-devices.js";
import type { ApiPushDevice } from "../../lib/push-registration.js";
import type { StateFetcher } from "./types.js";

export const fetchPushDeviceState: StateFetcher = async (sc, state) => {
  const out: Record<string, ApiPushDevice> = {};
  for (const d of await listPushDevices(sc.ctx.db, sc.realm.id, sc.user.id)) {
    out[String(d.push_account_id)] = { status: d.status as ApiPushDevice["status"], error_code: d.error_code };
  }
  state.push_devices = out;
};
